// The error reference (docs/errors.md), generated from the catalogues (ADR 0108).
//
//   node scripts/error-reference.mjs          writes docs/errors.md
//   node scripts/error-reference.mjs --check  exits 1 when docs/errors.md is stale
//   node scripts/error-reference.mjs --json F writes the catalogue as JSON (the gateway's build)
//
// Read statically with the TypeScript parser, so it needs no build: a catalogue entry is an
// exported `defineError({status, code, description})` with literal values; an area raises it when
// one of its modules imports it; an inline `httpError(...)` / `new ServiceError({...})` is listed
// too (the error-reference test allows those only in its TEMPORARY gateway list).
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const REFERENCE = 'docs/errors.md';
/** The error machinery itself builds ServiceErrors from variables; it raises no code of its own. */
const MACHINERY = 'libs/core/src/errors/';

const toPosix = (path) => path.split('\\').join('/');

function walk(dir, files = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['node_modules', 'dist', 'gen'].includes(entry.name)) walk(path, files);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/** The source trees whose errors reach a caller: every service, every library, the gateway. */
export function sourceFiles(root = ROOT) {
  const trees = [];
  for (const group of ['services', 'libs']) {
    for (const name of readdirSync(join(root, group))) trees.push(join(root, group, name, 'src'));
  }
  trees.push(join(root, 'gateway', 'src'));
  return trees
    .filter((tree) => existsSync(tree))
    .flatMap((tree) => walk(tree))
    .sort();
}

/** `identity/signin`, `gateway/handlers`, `core/errors`: the service (or library) and its domain folder. */
export function areaOf(file) {
  const parts = file.split('/');
  const srcAt = parts.indexOf('src');
  const owner = parts[0] === 'gateway' ? 'gateway' : parts[1];
  const inner = parts.slice(srcAt + 1);
  return inner.length > 1 ? `${owner}/${inner[0]}` : owner;
}

const literalText = (node) => {
  if (!node) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) {
    return node.head.text + node.templateSpans.map((span) => `<${span.expression.getText()}>${span.literal.text}`).join('');
  }
  return undefined;
};
const literalNumber = (node) => (node && ts.isNumericLiteral(node) ? Number(node.text) : undefined);

function objectProperties(node) {
  const properties = {};
  if (!node || !ts.isObjectLiteralExpression(node)) return properties;
  for (const property of node.properties) {
    if (ts.isPropertyAssignment(property) && ts.isIdentifier(property.name)) properties[property.name.text] = property.initializer;
  }
  return properties;
}

function jsDocOf(declaration) {
  const docs = ts.getJSDocCommentsAndTags(declaration).filter(ts.isJSDoc);
  const text = docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '').join(' ');
  return text.replace(/\s+/g, ' ').trim();
}

/** Reads one source file: its catalogue entries, inline raises, imports and re-exports. */
function readModule(root, path) {
  const file = toPosix(relative(root, path));
  const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const module = { file, entries: [], inline: [], problems: [], imports: [], reexports: [] };
  const lineOf = (node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;

  for (const statement of source.statements) {
    if (
      ts.isImportDeclaration(statement) &&
      statement.importClause?.namedBindings &&
      ts.isNamedImports(statement.importClause.namedBindings)
    ) {
      const names = statement.importClause.namedBindings.elements.map((element) => (element.propertyName ?? element.name).text);
      module.imports.push({ from: statement.moduleSpecifier.text, names });
    }
    if (ts.isExportDeclaration(statement) && statement.moduleSpecifier) {
      const names =
        statement.exportClause && ts.isNamedExports(statement.exportClause)
          ? statement.exportClause.elements.map((element) => ({
              local: (element.propertyName ?? element.name).text,
              exported: element.name.text,
            }))
          : undefined;
      module.reexports.push({ from: statement.moduleSpecifier.text, names });
    }
  }

  const visit = (node) => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'defineError') {
      const declaration = node.parent;
      const statement = declaration?.parent?.parent;
      const exported =
        statement &&
        ts.isVariableStatement(statement) &&
        statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword);
      const { status, code, description } = objectProperties(node.arguments[0]);
      const entry = {
        name: ts.isVariableDeclaration(declaration) && ts.isIdentifier(declaration.name) ? declaration.name.text : undefined,
        file,
        line: lineOf(node),
        status: literalNumber(status),
        code: literalText(code),
        description: literalText(description),
        when: ts.isVariableDeclaration(declaration) ? jsDocOf(declaration) : '',
      };
      if (!exported || !entry.name) module.problems.push(`${file}:${entry.line}: a catalogue entry is an exported const`);
      else if (entry.status === undefined || entry.code === undefined || entry.description === undefined) {
        module.problems.push(`${file}:${entry.line}: ${entry.name}: status, code and description must be literals`);
      } else {
        if (!entry.when) module.problems.push(`${file}:${entry.line}: ${entry.name}: needs a JSDoc line saying when it is thrown`);
        module.entries.push(entry);
      }
    }
    const raisedInline =
      (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'httpError') ||
      (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'ServiceError');
    if (raisedInline && !file.startsWith(MACHINERY)) {
      const args = node.arguments ?? [];
      const init = ts.isNewExpression(node) ? objectProperties(args[0]) : { status: args[0], code: args[1], description: args[2] };
      module.inline.push({
        file,
        line: lineOf(node),
        status: literalNumber(init.status),
        code: literalText(init.code),
        description: literalText(init.description),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return module;
}

/** The file a module specifier names, for relative paths and this repository's `@masthead/<lib>/<sub>`. */
function resolveSpecifier(root, fromFile, specifier) {
  if (specifier.startsWith('.')) return toPosix(relative(root, resolve(root, dirname(fromFile), specifier.replace(/\.js$/, '.ts'))));
  const match = /^@masthead\/([^/]+)\/(.+)$/.exec(specifier);
  if (match && existsSync(join(root, 'libs', match[1], 'src', match[2], 'index.ts'))) return `libs/${match[1]}/src/${match[2]}/index.ts`;
  return undefined;
}

/**
 * The whole picture: catalogue entries with the areas that raise them, inline raises, and the
 * problems the error-reference test reports.
 */
export function readErrors(root = ROOT) {
  const modules = new Map(sourceFiles(root).map((path) => [toPosix(relative(root, path)), readModule(root, path)]));
  const exportsCache = new Map();
  const exportsOf = (file, seen = new Set()) => {
    if (exportsCache.has(file)) return exportsCache.get(file);
    const module = modules.get(file);
    const names = new Map();
    if (module && !seen.has(file)) {
      seen.add(file);
      for (const entry of module.entries) names.set(entry.name, entry);
      for (const reexport of module.reexports) {
        const target = resolveSpecifier(root, file, reexport.from);
        if (!target) continue;
        const inner = exportsOf(target, seen);
        if (!reexport.names) for (const [name, entry] of inner) names.set(name, entry);
        else for (const { local, exported } of reexport.names) if (inner.has(local)) names.set(exported, inner.get(local));
      }
    }
    exportsCache.set(file, names);
    return names;
  };

  const entries = [...modules.values()].flatMap((module) => module.entries);
  const raisedBy = new Map(entries.map((entry) => [entry, new Set()]));
  for (const module of modules.values()) {
    for (const { from, names } of module.imports) {
      const target = resolveSpecifier(root, module.file, from);
      if (!target) continue;
      const exported = exportsOf(target);
      for (const name of names) if (exported.has(name)) raisedBy.get(exported.get(name)).add(areaOf(module.file));
    }
  }
  const inline = [...modules.values()].flatMap((module) => module.inline);
  const problems = [...modules.values()].flatMap((module) => module.problems);
  return { entries, raisedBy, inline, problems };
}

const cell = (text) => String(text).replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
/** Inside a code span entities are not decoded: only the column separator is escaped. */
const codeCell = (text) => `\`${String(text).replaceAll('|', '\\|')}\``;

/** One row per distinct (code, status, description), ordered by code then status, with the areas raising it. */
export function referenceRows({ entries, raisedBy, inline }) {
  const rows = new Map();
  const keyOf = (item) => `${item.code}\u0000${String(item.status).padStart(3, '0')}\u0000${item.description}`;
  for (const entry of entries) {
    const row = rows.get(keyOf(entry)) ?? { ...entry, names: [], areas: new Set() };
    row.names.push(`\`${entry.name}\` (${entry.file.replace(/^(services|libs)\//, '')})`);
    for (const area of raisedBy.get(entry)) row.areas.add(area);
    rows.set(keyOf(entry), row);
  }
  for (const raise of inline) {
    const item = { code: raise.code ?? '<computed>', status: raise.status ?? '<computed>', description: raise.description ?? '<computed>' };
    const row = rows.get(keyOf(item)) ?? { ...item, names: [], when: '', areas: new Set() };
    if (!row.names.includes('inline')) row.names.push('inline');
    row.areas.add(areaOf(raise.file));
    rows.set(keyOf(item), row);
  }
  return [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

/**
 * The catalogue as data, for the gateway's OpenAPI document (docs/adr/0184): written at the
 * gateway's build, never committed.
 */
export const catalogueOf = (errors) =>
  referenceRows(errors).map((row) => ({
    code: row.code,
    status: row.status,
    description: row.description,
    when: row.when,
    areas: [...row.areas].sort(),
  }));

/** docs/errors.md: one row per distinct (code, status, description), ordered by code then status. */
export function renderReference(errors) {
  const sorted = referenceRows(errors);
  const lines = [
    '# Error reference',
    '',
    '<!-- Generated by `node scripts/error-reference.mjs` from the error catalogues; do not edit by hand. -->',
    '',
    'Every error code a caller can receive, with its HTTP status and description (`<…>` marks text',
    'made per call), the named constructor that raises it, and the areas (service/domain folder) whose',
    'modules raise it (ADR 0108). "inline" would mark an error built in place, which the',
    "error-reference test refuses. The spec's literal bodies, answered outside ServiceError, are in ADR 0003.",
    '',
    '| Code | HTTP | Description | Constructor | When | Raised in |',
    '|---|---|---|---|---|---|',
    ...sorted.map(
      (row) =>
        `| ${codeCell(row.code)} | ${row.status} | ${cell(row.description)} | ${row.names.map(cell).join('<br>')} | ${cell(row.when)} | ${
          [...row.areas].sort().join(', ') || '—'
        } |`,
    ),
    '',
  ];
  return lines.join('\n');
}

function main() {
  const json = process.argv.indexOf('--json');
  if (json !== -1) {
    const target = resolve(process.argv[json + 1] ?? 'error-catalogue.json');
    writeFileSync(target, `${JSON.stringify(catalogueOf(readErrors()), null, 2)}\n`);
    return;
  }
  const reference = renderReference(readErrors());
  const path = join(ROOT, REFERENCE);
  if (process.argv.includes('--check')) {
    const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
    if (current !== reference) {
      console.error(`${REFERENCE} is stale: run node scripts/error-reference.mjs`);
      process.exit(1);
    }
    return;
  }
  writeFileSync(path, reference);
  console.log(`wrote ${REFERENCE}`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
