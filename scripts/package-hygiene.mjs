// What npm users, publint, @arethetypeswrong/cli and n8n's review see in a published package,
// checked on the real tarball (`pnpm pack`). Each publishable package's tests call
// `publishedPackageProblems(packageDir)` after its build; every problem is one readable line.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);
// pnpm and node of the project's toolchain (npm run setup), whatever PATH the test runner has.
const env = {
  ...process.env,
  PATH: [join(root, '.toolchain', 'node_modules', '.bin'), process.env.PATH].join(delimiter),
};
const repositoryUrl = 'git+https://github.com/observation-service/observation-service-integrations.git';
const placeholder = /example\.(com|org|net)|your-?(org|name|email)|TODO|changeme|localhost/i;

/** Links and images in a README must work on npm's page: absolute https URLs only. */
function relativeLinks(readme) {
  const out = [];
  for (const match of readme.matchAll(/!?\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)) {
    const target = match[1] ?? '';
    if (!/^(https:|mailto:|#)/.test(target)) out.push(target);
  }
  return out;
}

function packInto(packageDir, work) {
  const packDir = join(work, 'pack');
  mkdirSync(packDir, { recursive: true });
  execFileSync('pnpm', ['pack', '--pack-destination', packDir], { cwd: packageDir, stdio: 'ignore', env });
  const file = readdirSync(packDir).find((name) => name.endsWith('.tgz'));
  if (!file) throw new Error(`pnpm pack wrote no tarball for ${packageDir}`);
  const unpacked = join(work, 'package');
  mkdirSync(unpacked);
  execFileSync('tar', ['-xzf', join(packDir, file), '-C', unpacked, '--strip-components=1']);
  return { tarball: join(packDir, file), unpacked };
}

/** Every problem of the package as published (empty when clean). */
export async function publishedPackageProblems(packageDir) {
  const problems = [];
  const work = mkdtempSync(join(tmpdir(), 'pkg-hygiene-'));
  try {
    const { tarball, unpacked } = packInto(packageDir, work);
    const pkg = JSON.parse(readFileSync(join(unpacked, 'package.json'), 'utf8'));
    const name = pkg.name;
    if (!existsSync(join(unpacked, 'LICENSE'))) problems.push(`${name}: no LICENSE file in the tarball`);
    else if (!/MIT License/.test(readFileSync(join(unpacked, 'LICENSE'), 'utf8')))
      problems.push(`${name}: LICENSE is not the MIT license package.json names`);
    if (pkg.license !== 'MIT') problems.push(`${name}: license is ${pkg.license}, expected MIT`);
    if (pkg.main !== undefined && !existsSync(join(unpacked, pkg.main)))
      problems.push(`${name}: main points at ${pkg.main}, which is not in the tarball`);
    if (pkg.repository?.url !== repositoryUrl)
      problems.push(`${name}: repository.url is ${pkg.repository?.url}, expected ${repositoryUrl}`);
    if (!pkg.repository?.directory || !existsSync(join(root, pkg.repository.directory, 'package.json')))
      problems.push(`${name}: repository.directory does not name its folder`);
    if (
      !/^https:\/\/github\.com\/observation-service\/observation-service-integrations\/issues$/.test(
        pkg.bugs?.url ?? '',
      )
    )
      problems.push(`${name}: bugs.url missing or not the repository's issues`);
    if (!pkg.author) problems.push(`${name}: no author`);
    if (!/^https:\/\/github\.com\//.test(pkg.homepage ?? '')) problems.push(`${name}: homepage missing`);
    if (pkg.publishConfig?.provenance !== true)
      problems.push(`${name}: publishConfig.provenance is not true`);
    const readme = existsSync(join(unpacked, 'README.md'))
      ? readFileSync(join(unpacked, 'README.md'), 'utf8')
      : '';
    if (readme === '') problems.push(`${name}: no README.md in the tarball`);
    for (const target of relativeLinks(readme))
      problems.push(`${name}: README link or image is not absolute: ${target}`);
    // Addresses in package.json (README code samples may use RFC 2606's example.com on purpose).
    for (const field of [
      JSON.stringify({
        author: pkg.author,
        bugs: pkg.bugs,
        homepage: pkg.homepage,
        repository: pkg.repository,
      }),
    ]) {
      const found = placeholder.exec(field ?? '');
      if (found) problems.push(`${name}: placeholder-looking text "${found[0]}"`);
    }

    const { publint } = await import('publint');
    const { messages } = await publint({ pkgDir: unpacked, level: 'suggestion', pack: false });
    for (const message of messages)
      problems.push(`${name}: publint ${message.type} ${message.code} at ${message.path.join('.')}`);

    if (pkg.types !== undefined || pkg.exports !== undefined) {
      let report;
      try {
        report = execFileSync(bin('attw'), [tarball, '--format', 'json'], { encoding: 'utf8', env });
      } catch (error) {
        // attw exits non-zero when it finds problems; the JSON is still on stdout.
        report = String(error.stdout ?? '');
      }
      const parsed = JSON.parse(report);
      for (const problem of parsed.analysis?.problems ?? [])
        problems.push(
          `${name}: attw ${problem.kind}${problem.entrypoint ? ` at ${problem.entrypoint}` : ''}${problem.resolutionKind ? ` (${problem.resolutionKind})` : ''}`,
        );
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return problems;
}
