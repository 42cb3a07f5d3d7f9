/** Every problem of the package as published (pnpm pack), one readable line each; empty when clean. */
export function publishedPackageProblems(packageDir: string): Promise<string[]>;
