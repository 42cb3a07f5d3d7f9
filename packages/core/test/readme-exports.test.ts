import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, test } from 'vitest';

// Issue 30: every name the package exports is described in the README, or it is not exported.
// The names are read from the entry points' source (no build needed), following `export *` and
// `export { … } from` into the files they name.

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');

interface Exported {
  name: string;
  /** Exported as a type only (`export type`, `type X` in a list, an interface or a type alias). */
  typeOnly: boolean;
}

function isExported(statement: ts.Statement): boolean {
  return ts.canHaveModifiers(statement)
    ? (ts.getModifiers(statement) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
    : false;
}

/** What a source file of `src/` exports, by name. */
function exportsOf(file: string): Map<string, Exported> {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found = new Map<string, Exported>();
  const add = (name: string, typeOnly: boolean) => found.set(name, { name, typeOnly });
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const clause = statement.exportClause;
      if (clause === undefined) {
        // export * from './x.js': everything x exports (a module of src/, written with .js).
        const specifier = statement.moduleSpecifier;
        if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) {
          throw new Error(`${file}: export * from something other than a file of src/`);
        }
        const target = resolve(dirname(file), specifier.text.replace(/\.js$/, '.ts'));
        for (const entry of exportsOf(target).values())
          add(entry.name, entry.typeOnly || statement.isTypeOnly);
      } else if (ts.isNamedExports(clause)) {
        for (const element of clause.elements)
          add(element.name.text, statement.isTypeOnly || element.isTypeOnly);
      } else {
        add(clause.name.text, statement.isTypeOnly); // export * as name
      }
    } else if (ts.isExportAssignment(statement)) {
      throw new Error(`${file}: a default export has no name to document`);
    } else if (isExported(statement)) {
      if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
        add(statement.name.text, true);
      } else if (
        (ts.isFunctionDeclaration(statement) ||
          ts.isClassDeclaration(statement) ||
          ts.isEnumDeclaration(statement)) &&
        statement.name
      ) {
        add(statement.name.text, false);
      } else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          if (!ts.isIdentifier(declaration.name)) throw new Error(`${file}: an exported destructuring`);
          add(declaration.name.text, false);
        }
      } else {
        throw new Error(`${file}: an export this test does not read: ${statement.getText(source)}`);
      }
    }
  }
  return found;
}

const nodeEntry = exportsOf(join(packageDir, 'src', 'index.ts'));
const portableEntry = exportsOf(join(packageDir, 'src', 'portable.ts'));
const exported = new Map([...portableEntry, ...nodeEntry]);

/** The tables of "Everything the package exports": the name in each row, by subsection. */
function referenceRows(): Map<string, { section: string; purpose: string }> {
  const start = readme.indexOf('\n## Everything the package exports\n');
  expect(start, 'the README has a section "Everything the package exports"').toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const rows = new Map<string, { section: string; purpose: string }>();
  let heading = '';
  for (const line of section.split('\n')) {
    const title = /^### (.+)$/.exec(line);
    if (title) heading = title[1] ?? '';
    const row = /^\| `([^`]+)` +\| (.*?) *\|$/.exec(line);
    if (!row) continue;
    const name = row[1] ?? '';
    expect(rows.has(name), `${name} has one row`).toBe(false);
    rows.set(name, { section: heading, purpose: row[2] ?? '' });
  }
  return rows;
}

describe('the README documents every exported name', () => {
  test('the entries are read: both have createClient, only the Node entry has systemClock', () => {
    expect(nodeEntry.get('createClient')?.typeOnly).toBe(false);
    expect(portableEntry.get('createClient')?.typeOnly).toBe(false);
    expect(nodeEntry.has('systemClock')).toBe(true);
    expect(portableEntry.has('systemClock')).toBe(false);
    expect(nodeEntry.get('ObservationClient')?.typeOnly).toBe(true);
    // The portable entry's names come through shared-exports.ts, so both are long lists.
    expect(portableEntry.size).toBeGreaterThan(100);
  });

  test('every exported name appears in the README as a code span', () => {
    const missing = [...exported.keys()].filter((name) => !readme.includes(`\`${name}\``));
    expect(missing, 'exported but not in README.md: describe them, or stop exporting them').toEqual([]);
  });

  test('"Everything the package exports" has one row per exported name, with what it is for', () => {
    const rows = referenceRows();
    const undocumented = [...exported.keys()].filter((name) => !rows.has(name)).sort();
    expect(undocumented, 'exported without a row in "Everything the package exports"').toEqual([]);
    const stale = [...rows.keys()].filter((name) => !exported.has(name)).sort();
    expect(stale, 'a row for a name neither entry exports').toEqual([]);
    const blank = [...rows].filter(([, row]) => row.purpose.length < 10).map(([name]) => name);
    expect(blank, 'a row that does not say what the name is for').toEqual([]);
  });

  test('the names only the Node entry exports are the ones under "Node entry only"', () => {
    const rows = referenceRows();
    const nodeOnly = [...nodeEntry.keys()].filter((name) => !portableEntry.has(name)).sort();
    const listed = [...rows].filter(([, row]) => row.section === 'Node entry only').map(([name]) => name);
    expect(listed.sort()).toEqual(nodeOnly);
    // Every name of the portable entry is in the Node entry as well.
    expect([...portableEntry.keys()].filter((name) => !nodeEntry.has(name))).toEqual([]);
  });

  test('as the README says, the only exported values with a capital initial are the error classes', () => {
    const values = [...exported.values()].filter((entry) => !entry.typeOnly && /^[A-Z]/.test(entry.name));
    expect(values.filter((entry) => !entry.name.endsWith('Error'))).toEqual([]);
  });
});
