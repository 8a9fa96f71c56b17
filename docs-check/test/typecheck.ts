import { dirname } from "node:path";
import ts from "typescript";

/**
 * Type-checks with the compiler API: the project of `tsconfigPath` (or only `onlyVirtual`), plus
 * files that exist only in memory, such as code blocks, placed at the given paths so that their
 * imports resolve as they would for a file there. Returns the diagnostics as text.
 */
export function typeCheck(
  tsconfigPath: string,
  virtual: ReadonlyMap<string, string>,
  options: { onlyVirtual?: boolean } = {},
): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    tsconfigPath,
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${tsconfigPath}`);
  const host = ts.createCompilerHost(parsed.options);
  const readSource = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, ...rest) => {
    const text = virtual.get(name);
    return text === undefined ? readSource(name, language, ...rest) : ts.createSourceFile(name, text, language);
  };
  host.fileExists = (name) => virtual.has(name) || ts.sys.fileExists(name);
  host.readFile = (name) => virtual.get(name) ?? ts.sys.readFile(name);
  host.directoryExists = (name) =>
    [...virtual.keys()].some((path) => dirname(path).startsWith(name)) || ts.sys.directoryExists(name);
  const rootNames = [...(options.onlyVirtual ? [] : parsed.fileNames), ...virtual.keys()];
  const program = ts.createProgram({ rootNames, options: parsed.options, host });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    if (!d.file || d.start === undefined) return message;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}(${line + 1},${character + 1}): ${message}`;
  });
}
