// The TypeScript LanguageService as references truth (bench/refs_truth/typescript.py).
//
//   node ts_references.js TYPESCRIPT_DIR ROOT exports ENTRY.ts...  -> [{name, path, line, kind}]
//   node ts_references.js TYPESCRIPT_DIR ROOT references < [{name, path, line}]
//                                            -> [{name, path, line, declarations, references}]
//
// Paths are relative to ROOT (POSIX), lines 1-based; `declarations` are the lines of
// the symbol's own declarations (overloads included), `references` every other line
// findReferences reports inside ROOT (uses through aliases and re-exports included).
"use strict";
const fs = require("fs");
const path = require("path");

const [tsDir, root, mode, ...entries] = process.argv.slice(2);
const ts = require(tsDir);

function walk(dir, out) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (/\.tsx?$/.test(entry.name)) out.push(full);
  }
  return out;
}

const files = walk(root, []);
const options = {
  target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS,
  moduleResolution: ts.ModuleResolutionKind.Node10, strict: true, noEmit: true,
  skipLibCheck: true, lib: ["lib.es2020.d.ts", "lib.dom.d.ts"],
};
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => "1",
  getScriptSnapshot: (f) => fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined,
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists, getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();
const checker = program.getTypeChecker();

const inside = (file) => !path.relative(root, file).startsWith("..");
const rel = (file) => path.relative(root, file).split(path.sep).join("/");
const lineOf = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;

function nameNode(decl) {
  return decl.name && ts.isIdentifier(decl.name) ? decl.name : undefined;
}

function exportsOf(entry) {
  const sf = program.getSourceFile(path.join(root, entry));
  const found = [];
  for (let symbol of checker.getExportsOfModule(checker.getSymbolAtLocation(sf))) {
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const decl = (symbol.declarations || []).find((d) => nameNode(d) && inside(d.getSourceFile().fileName));
    if (!decl) continue;
    const file = decl.getSourceFile();
    found.push({ name: symbol.name, path: rel(file.fileName), line: lineOf(file, nameNode(decl).getStart()),
                 kind: ts.SyntaxKind[decl.kind] });
  }
  return found;
}

function referencesOf(query) {
  const file = program.getSourceFile(path.join(root, query.path));
  const text = file.getFullText();
  const lineStart = file.getPositionOfLineAndCharacter(query.line - 1, 0);
  const match = new RegExp(`\\b${query.name}\\b`).exec(text.slice(lineStart));
  const position = lineStart + match.index;
  const symbol = checker.getSymbolAtLocation(ts.getTokenAtPosition(file, position));
  const declarations = new Set((symbol.declarations || [])
    .filter((d) => d.getSourceFile() === file)
    .map((d) => lineOf(file, (nameNode(d) || d).getStart())));
  const references = new Map();
  for (const group of service.findReferences(file.fileName, position) || []) {
    for (const ref of group.references) {
      if (!inside(ref.fileName)) continue;
      const refFile = program.getSourceFile(ref.fileName);
      const line = lineOf(refFile, ref.textSpan.start);
      if (ref.fileName === file.fileName && declarations.has(line)) continue;
      references.set(`${rel(ref.fileName)}:${line}`, [rel(ref.fileName), line]);
    }
  }
  return { ...query, declarations: [...declarations].sort((a, b) => a - b),
           references: [...references.values()] };
}

if (mode === "exports") {
  const seen = new Map();
  for (const entry of entries) for (const item of exportsOf(entry)) seen.set(`${item.path}:${item.line}`, item);
  process.stdout.write(JSON.stringify([...seen.values()]));
} else {
  const queries = JSON.parse(fs.readFileSync(0, "utf8"));
  process.stdout.write(JSON.stringify(queries.map(referencesOf)));
}
