/**
 * Shell syntax refused under any policy because bash evaluates values there as arithmetic, which
 * runs a `$(cmd)` hidden in a value (`x='a[$(cmd)]'; (( x ))`): `(( ))`, `$(( ))`, `$[ ]`,
 * `for (( ))`, `let`, declaration builtins (`declare`, `typeset`, `local`, `export`, `readonly`),
 * `[[ ]]` with expansions in it, non-numeric array subscripts and substring offsets, `${!x}`.
 */

export interface ShPos {
  Offset(): number;
}
export interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
}
export interface ShSyntax {
  NewParser(): { Parse(source: string, name: string): unknown };
  Walk(node: unknown, visit: (node: unknown) => boolean): void;
  NodeType(node: unknown): string;
}

interface ShAssign extends ShNode {
  Index?: ShNode | null;
}
interface ShParamExp extends ShNode {
  Excl?: boolean;
  Names?: number;
  Index?: ShNode | null;
  Slice?: { Offset?: ShNode | null; Length?: ShNode | null } | null;
}

const ARITHMETIC_RISK = "bash evaluates values there as arithmetic, which runs a `$(cmd)` hidden in them";

/** The reason `node` is refused under any policy, or undefined. */
export function refusedSyntax(syntax: ShSyntax, node: unknown, source: Buffer): string | undefined {
  const type = syntax.NodeType(node);
  const text = (n: ShNode) => source.subarray(n.Pos().Offset(), n.End().Offset()).toString("utf8");
  const refuse = (n: ShNode, what: string): string => {
    const shown = text(n);
    const snippet = shown.length > 60 ? `${shown.slice(0, 57)}...` : shown;
    return `\`${snippet}\`: ${what} is refused under a command policy (${ARITHMETIC_RISK})`;
  };
  const shell = node as ShNode;
  switch (type) {
    case "ArithmCmd":
    case "ArithmExp":
    case "CStyleLoop":
      return refuse(shell, "arithmetic");
    case "LetClause":
      return refuse(shell, "`let`");
    case "DeclClause":
      return refuse(shell, "a declaration builtin (declare, typeset, local, export, readonly)");
    case "TestClause":
      return containsExpansion(syntax, node) ? refuse(shell, "`[[ ]]` with an expansion in it") : undefined;
    case "Assign": {
      const index = (node as ShAssign).Index;
      return index && !/^\s*\d+\s*$/.test(text(index))
        ? refuse(shell, "an array subscript that is not a number")
        : undefined;
    }
    case "ParamExp": {
      const param = node as ShParamExp;
      const index = param.Index ? text(param.Index).trim() : undefined;
      if (index !== undefined && !/^(\d+|@|\*)$/.test(index))
        return refuse(shell, "an array subscript that is not a number");
      if (param.Excl && !param.Names && index === undefined)
        return refuse(shell, "indirect expansion (`!` before a name)");
      const numeric = (n: ShNode | null | undefined) => !n || /^\s*\(?\s*-?\d+\s*\)?\s*$/.test(text(n));
      if (param.Slice && !(numeric(param.Slice.Offset) && numeric(param.Slice.Length)))
        return refuse(shell, "a substring offset that is not a number");
      return undefined;
    }
    default:
      return undefined;
  }
}

function containsExpansion(syntax: ShSyntax, node: unknown): boolean {
  let found = false;
  syntax.Walk(node, (inner) => {
    if (inner === null || found) return false;
    const type = syntax.NodeType(inner);
    if (type === "ParamExp" || type === "CmdSubst" || type === "ArithmExp" || type === "ProcSubst")
      found = true;
    return !found;
  });
  return found;
}
