#!/usr/bin/env python3
"""Differential test of Tack's parser against CPython's own.

Converts CPython's `ast` of each function to the S-expression form of
`tack::syntax::dump` and compares it with what Tack's parser builds, over

  * every function and method in a directory of Python sources (by default
    this interpreter's standard library), dedented as inspect.getsource
    would give it, and
  * randomly generated expressions and statements, valid and invalid,
    where the two parsers must also agree on acceptance.

With --spans it also compares the span of every statement and expression
node (CPython's byte offsets converted to code points).

  g++ -std=c++20 -O2 -Isrc tests/fuzz/batch_dump.cpp build/src/syntax/libtack_syntax.a -o batch_dump
  python3 tests/fuzz/compare_with_cpython.py ./batch_dump --spans [--stdlib DIR] [--random N] [--seed S]

Needs Python 3.11 (the grammar Tack follows). Exits non-zero on a mismatch.
Known, deliberate differences are skipped: f-string internals and \\N{name}
escapes (Tack does not decode them), and CPython compile-stage errors that
Tack's parser reports in a different order.
"""
import argparse
import ast
import os
import random
import re
import subprocess
import sys
import warnings


# ------------------------------------------------------- ast -> dump text

def quote(value):
    """quote_string() in literals.cpp: str form when valid UTF-8, else bytes."""
    data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else value
    try:
        data.decode("utf-8")
        text = True
    except UnicodeDecodeError:
        text = False
    out = bytearray(b'"' if text else b'b"')
    escapes = {0x5C: b"\\\\", 0x22: b'\\"', 0x0A: b"\\n", 0x0D: b"\\r", 0x09: b"\\t"}
    for b in data:
        if b in escapes:
            out += escapes[b]
        elif b < 0x20 or b == 0x7F or (b >= 0x80 and not text):
            out += b"\\x%02x" % b
        else:
            out.append(b)
    return (out + b'"').decode("utf-8")


BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
          ast.Pow: "**", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&",
          ast.BitOr: "|", ast.BitXor: "^"}
UNOPS = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "not"}
CMPOPS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
          ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}


class Dumper:
    def __init__(self, source):
        self.source = source

    def unsupported(self, construct, children):
        return "(unsupported " + quote(construct) + "".join(" " + self.e(c) for c in children) + ")"

    def comprehension(self, construct, head, generators):
        children = list(head)
        for g in generators:
            children += [g.target, g.iter] + list(g.ifs)
        return self.unsupported(construct, children)

    def e(self, n):
        if n is None:
            return "_"
        t = type(n)
        if t is ast.Name:
            return n.id
        if t is ast.Constant:
            v = n.value
            if v is True or v is False or v is None:
                return repr(v)
            if isinstance(v, int):
                if v < 2**64:
                    return str(v)
                return ast.get_source_segment(self.source, n)
            if isinstance(v, float):
                return repr(v)
            if isinstance(v, complex):
                return self.unsupported("complex literal", [])
            if v is Ellipsis:
                return self.unsupported("ellipsis", [])
            return quote(v)
        if t is ast.JoinedStr:
            return self.unsupported("f-string", [])
        if t is ast.UnaryOp:
            return "(%s %s)" % (UNOPS[type(n.op)], self.e(n.operand))
        if t is ast.BinOp:
            return "(%s %s %s)" % (BINOPS[type(n.op)], self.e(n.left), self.e(n.right))
        if t is ast.BoolOp:
            return "(%s %s)" % ("and" if type(n.op) is ast.And else "or", " ".join(self.e(v) for v in n.values))
        if t is ast.Compare:
            s = "(cmp " + self.e(n.left)
            for op, c in zip(n.ops, n.comparators):
                s += " %s %s" % (CMPOPS[type(op)], self.e(c))
            return s + ")"
        if t is ast.IfExp:
            return "(if %s %s %s)" % (self.e(n.test), self.e(n.body), self.e(n.orelse))
        if t is ast.Call:
            s = "(call " + self.e(n.func) + "".join(" " + self.e(a) for a in n.args)
            for k in n.keywords:
                s += " (kw %s %s)" % (k.arg if k.arg is not None else "**", self.e(k.value))
            return s + ")"
        if t is ast.Attribute:
            return "(. %s %s)" % (self.e(n.value), n.attr)
        if t is ast.Subscript:
            return "([] %s %s)" % (self.e(n.value), self.e(n.slice))
        if t is ast.Tuple:
            return "(tuple" + "".join(" " + self.e(x) for x in n.elts) + ")"
        if t is ast.List:
            return "(list" + "".join(" " + self.e(x) for x in n.elts) + ")"
        if t is ast.Slice:
            return "(slice %s %s %s)" % (self.e(n.lower), self.e(n.upper), self.e(n.step))
        if t is ast.Starred:
            return "(* %s)" % self.e(n.value)
        if t is ast.Lambda:
            a = n.args
            return self.unsupported("lambda", list(a.defaults) + [d for d in a.kw_defaults if d] + [n.body])
        if t is ast.ListComp:
            return self.comprehension("list comprehension", [n.elt], n.generators)
        if t is ast.SetComp:
            return self.comprehension("set comprehension", [n.elt], n.generators)
        if t is ast.GeneratorExp:
            return self.comprehension("generator expression", [n.elt], n.generators)
        if t is ast.DictComp:
            return self.comprehension("dict comprehension", [n.key, n.value], n.generators)
        if t is ast.Dict:
            parts = []
            for k, v in zip(n.keys, n.values):
                parts.append("(** %s)" % self.e(v) if k is None else self.e(k) + " " + self.e(v))
            return "(unsupported " + quote("dict display") + "".join(" " + p for p in parts) + ")"
        if t is ast.Set:
            return self.unsupported("set display", n.elts)
        if t is ast.NamedExpr:
            return self.unsupported("walrus operator (:=)", [n.target, n.value])
        if t in (ast.Yield, ast.YieldFrom):
            return self.unsupported("yield", [n.value] if n.value else [])
        if t is ast.Await:
            return self.unsupported("await", [n.value])
        raise NotImplementedError(t.__name__)

    def body(self, head, stmts):
        return " (" + head + "".join(" " + self.s(x) for x in stmts) + ")"

    def unsupported_stmt(self, construct, exprs, bodies):
        s = "(unsupported-stmt " + quote(construct) + " (exprs" + "".join(" " + self.e(x) for x in exprs) + ")"
        return s + "".join(self.body("body", b) for b in bodies) + ")"

    def param_exprs(self, a):
        """Annotations and defaults of a def's parameters, in source order."""
        out = []
        positional = a.posonlyargs + a.args
        first_default = len(positional) - len(a.defaults)
        for i, p in enumerate(positional):
            if p.annotation:
                out.append(p.annotation)
            if i >= first_default:
                out.append(a.defaults[i - first_default])
        if a.vararg and a.vararg.annotation:
            out.append(a.vararg.annotation)
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.annotation:
                out.append(p.annotation)
            if d:
                out.append(d)
        if a.kwarg and a.kwarg.annotation:
            out.append(a.kwarg.annotation)
        return out

    def s(self, n):
        t = type(n)
        if t is ast.Expr:
            return "(expr %s)" % self.e(n.value)
        if t is ast.Assign:
            return "(= " + " ".join(self.e(x) for x in n.targets) + " " + self.e(n.value) + ")"
        if t is ast.AugAssign:
            return "(%s= %s %s)" % (BINOPS[type(n.op)], self.e(n.target), self.e(n.value))
        if t is ast.AnnAssign:
            return self.unsupported_stmt("annotated assignment", [n.target, n.annotation] + ([n.value] if n.value else []), [])
        if t is ast.For:
            s = "(for %s %s" % (self.e(n.target), self.e(n.iter)) + self.body("body", n.body)
            return s + (self.body("else", n.orelse) if n.orelse else "") + ")"
        if t is ast.AsyncFor:
            return self.unsupported_stmt("async for", [n.target, n.iter], [n.body] + ([n.orelse] if n.orelse else []))
        if t is ast.While:
            s = "(while %s" % self.e(n.test) + self.body("body", n.body)
            return s + (self.body("else", n.orelse) if n.orelse else "") + ")"
        if t is ast.If:
            s = "(if %s" % self.e(n.test) + self.body("body", n.body)
            return s + (self.body("else", n.orelse) if n.orelse else "") + ")"
        if t is ast.Return:
            return "(return %s)" % self.e(n.value) if n.value else "(return)"
        if t is ast.Break:
            return "(break)"
        if t is ast.Continue:
            return "(continue)"
        if t is ast.Pass:
            return "(pass)"
        if t in (ast.Try, getattr(ast, "TryStar", ast.Try)):
            exprs = [h.type for h in n.handlers if h.type]
            bodies = [n.body] + [h.body for h in n.handlers]
            if n.orelse:
                bodies.append(n.orelse)
            if n.finalbody:
                bodies.append(n.finalbody)
            return self.unsupported_stmt("try", exprs, bodies)
        if t in (ast.With, ast.AsyncWith):
            exprs = []
            for item in n.items:
                exprs.append(item.context_expr)
                if item.optional_vars:
                    exprs.append(item.optional_vars)
            return self.unsupported_stmt("with" if t is ast.With else "async with", exprs, [n.body])
        if t is ast.Raise:
            return self.unsupported_stmt("raise", [x for x in (n.exc, n.cause) if x], [])
        if t is ast.Import:
            return self.unsupported_stmt("import", [], [])
        if t is ast.ImportFrom:
            return self.unsupported_stmt("from-import", [], [])
        if t is ast.Assert:
            return self.unsupported_stmt("assert", [n.test] + ([n.msg] if n.msg else []), [])
        if t in (ast.FunctionDef, ast.AsyncFunctionDef):
            exprs = list(n.decorator_list) + self.param_exprs(n.args) + ([n.returns] if n.returns else [])
            return self.unsupported_stmt("nested def", exprs, [n.body])
        if t is ast.ClassDef:
            exprs = list(n.decorator_list) + list(n.bases) + [k.value for k in n.keywords]
            return self.unsupported_stmt("class", exprs, [n.body])
        if t in (ast.Global, ast.Nonlocal):
            return self.unsupported_stmt("global" if t is ast.Global else "nonlocal", [ast.Name(x) for x in n.names], [])
        if t is ast.Delete:
            return self.unsupported_stmt("del", n.targets, [])
        if t is ast.Match:
            exprs = [n.subject] + [c.guard for c in n.cases if c.guard]
            return self.unsupported_stmt("match", exprs, [c.body for c in n.cases])
        raise NotImplementedError(t.__name__)

    def function(self, n):
        s = "(def " + n.name + (" async" if isinstance(n, ast.AsyncFunctionDef) else "") + " (params"
        a = n.args
        positional = a.posonlyargs + a.args
        first_default = len(positional) - len(a.defaults)

        def param(kind, p, default):
            r = " (%s %s" % (kind, p.arg)
            if p.annotation:
                r += " : " + self.e(p.annotation)
            if default:
                r += " = " + self.e(default)
            return r + ")"

        for i, p in enumerate(positional):
            kind = "param/" if i < len(a.posonlyargs) else "param"
            s += param(kind, p, a.defaults[i - first_default] if i >= first_default else None)
        if a.vararg:
            s += param("param*", a.vararg, None)
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            s += param("param-kw", p, d)
        if a.kwarg:
            s += param("param**", a.kwarg, None)
        s += ")"
        if n.returns:
            s += " (-> " + self.e(n.returns) + ")"
        if n.decorator_list:
            s += " (decorators" + "".join(" " + self.e(d) for d in n.decorator_list) + ")"
        return s + self.body("body", n.body) + ")"


# Errors CPython finds after parsing (in its compiler) that Tack's parser also reports.
COMPILE_STAGE_ERRORS = ("duplicate argument", "outside loop", "not properly in loop", "keyword argument repeated",
                        "starred assignment target", "can't use starred expression")

# Set by expected_dump: whether CPython's compiler rejected the last source.
last_compile_failed = False


def expected_dump(source):
    """CPython's reading of `source` as dump text, or None if CPython rejects it."""
    global last_compile_failed
    last_compile_failed = False
    try:
        tree = ast.parse(source)
    except SyntaxError as e:
        # Tack does not look inside f-strings.
        return "f-string" if str(e).startswith("f-string") else None
    except ValueError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    # Errors CPython finds after parsing that Tack's parser also reports; the
    # rest (nonlocal at module level, 'await' outside async ...) are for
    # validation to reject. CPython stops at the first, so an `await` in a
    # plain def is retried as an async def to reach the others.
    for attempt in range(2):
        try:
            compile(tree, "<k>", "exec")
        except SyntaxError as e:
            last_compile_failed = True
            if any(m in str(e) for m in COMPILE_STAGE_ERRORS):
                return None
            if attempt == 0 and ("outside async function" in str(e) or "asynchronous comprehension" in str(e)):
                fn = tree.body[0]
                tree = ast.Module(body=[ast.AsyncFunctionDef(**{f: getattr(fn, f) for f in fn._fields},
                                                             lineno=fn.lineno, col_offset=fn.col_offset)],
                                  type_ignores=[])
                continue
        break
    tree = ast.parse(source)
    return Dumper(source).function(tree.body[0])


# ------------------------------------------------------------------ spans

UNSUPPORTED_EXPRS = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Dict, ast.Set,
                     ast.JoinedStr, ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)
EXPR_KINDS = {ast.Name: "Name", ast.UnaryOp: "Unary", ast.BinOp: "Binary", ast.BoolOp: "BoolOp",
              ast.Compare: "Compare", ast.IfExp: "IfExp", ast.Call: "Call", ast.Attribute: "Attribute",
              ast.Subscript: "Subscript", ast.Tuple: "Tuple", ast.List: "List", ast.Slice: "Slice",
              ast.Starred: "Starred"}
STMT_KINDS = {ast.Expr: "ExprStmt", ast.Assign: "Assign", ast.AugAssign: "AugAssign", ast.For: "For",
              ast.While: "While", ast.If: "If", ast.Return: "Return", ast.Break: "Break",
              ast.Continue: "Continue", ast.Pass: "Pass"}


class Spans:
    """The span walk of batch_dump.cpp over CPython's tree, in code points."""

    def __init__(self, source):
        self.lines = [l.encode("utf-8", "surrogatepass") for l in re.split(r"\r\n|\r|\n", source)]
        self.out = []

    def col(self, line, offset):
        return len(self.lines[line - 1][:offset].decode("utf-8", "replace")) + 1

    def emit(self, kind, n):
        self.out.append("%s@%d:%d-%d:%d" % (kind, n.lineno, self.col(n.lineno, n.col_offset), n.end_lineno,
                                            self.col(n.end_lineno, n.end_col_offset)))

    def e(self, n):
        if n is None or isinstance(n, UNSUPPORTED_EXPRS):
            return
        if isinstance(n, ast.Constant):
            v = n.value
            if isinstance(v, complex) or v is Ellipsis:
                return
            kind = ("BoolLit" if isinstance(v, bool) else "NoneLit" if v is None else "IntLit" if isinstance(v, int)
                    else "FloatLit" if isinstance(v, float) else "StringLit")
            self.emit(kind, n)
            return
        self.emit(EXPR_KINDS[type(n)], n)
        t = type(n)
        children = {ast.UnaryOp: lambda: [n.operand], ast.BinOp: lambda: [n.left, n.right],
                    ast.BoolOp: lambda: n.values, ast.Compare: lambda: [n.left] + n.comparators,
                    ast.IfExp: lambda: [n.body, n.test, n.orelse],
                    ast.Call: lambda: [n.func] + n.args + [k.value for k in n.keywords],
                    ast.Attribute: lambda: [n.value], ast.Subscript: lambda: [n.value, n.slice],
                    ast.Tuple: lambda: n.elts, ast.List: lambda: n.elts,
                    ast.Slice: lambda: [n.lower, n.upper, n.step], ast.Starred: lambda: [n.value]}.get(t)
        for c in (children() if children else []):
            self.e(c)

    def s(self, n):
        kind = STMT_KINDS.get(type(n))
        if kind is None:
            return
        self.emit(kind, n)
        t = type(n)
        if t is ast.Expr:
            self.e(n.value)
        elif t is ast.Assign:
            for x in n.targets + [n.value]:
                self.e(x)
        elif t is ast.AugAssign:
            self.e(n.target), self.e(n.value)
        elif t in (ast.For, ast.While, ast.If):
            if t is ast.For:
                self.e(n.target), self.e(n.iter)
            else:
                self.e(n.test)
            for x in n.body + n.orelse:
                self.s(x)
        elif t is ast.Return:
            self.e(n.value)


def expected_spans(source):
    fn = ast.parse(source).body[0]
    w = Spans(source)
    for x in fn.body:
        w.s(x)
    return " ".join(w.out)


def normalize(d):
    # CPython's ast does not record whether a tuple was parenthesized.
    return d.replace("(tuple() ", "(tuple ").replace("(tuple()", "(tuple")


# ------------------------------------------------------------- the corpora

def stdlib_functions(root):
    for dirpath, _, files in os.walk(root):
        if "site-packages" in dirpath or "test" in dirpath.split(os.sep)[-1:]:
            continue
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(dirpath, f)
            try:
                text = open(path, encoding="utf-8").read()
                tree = ast.parse(text)
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            lines = text.splitlines(keepends=True)
            for node in ast.walk(tree):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
                chunk = lines[first:node.end_lineno]
                indent = node.col_offset
                dedented = "".join(l[indent:] if l[:indent].strip() == "" else l for l in chunk)
                yield dedented


ATOMS = ["a", "b", "c", "x1", "0", "1", "2.5", "1e3", "0x_ff", "'s'", "b'y'", "True", "None", "...", "1j",
         "f'{a}'", "[]", "()", "{}", "[a, *b]", "(a,)", "{a: b}", "{a}", "é"]
BINARY = ["+", "-", "*", "/", "//", "%", "**", "@", "<<", ">>", "&", "|", "^", "<", "<=", ">", ">=", "==",
          "!=", "in", "not in", "is", "is not", "and", "or"]


def random_expression(rng, depth=0):
    if depth > 4 or rng.random() < 0.25:
        return rng.choice(ATOMS)
    r = rng.random()
    sub = lambda: random_expression(rng, depth + 1)
    if r < 0.35:
        return "%s %s %s" % (sub(), rng.choice(BINARY), sub())
    if r < 0.45:
        return rng.choice(["-", "+", "~", "not ", "await "]) + sub()
    if r < 0.55:
        return "(%s)" % sub()
    if r < 0.62:
        return "%s if %s else %s" % (sub(), sub(), sub())
    if r < 0.70:
        return "f(%s)" % ", ".join(rng.choice([sub(), "*" + sub(), "k=" + sub(), "**" + sub()])
                                  for _ in range(rng.randint(0, 3)))
    if r < 0.76:
        return "%s[%s]" % (rng.choice(["a", "x[1]", "f()"]),
                           ", ".join(rng.choice([sub(), "1:2", "::" + sub(), sub() + ":"]) for _ in range(rng.randint(1, 3))))
    if r < 0.80:
        return "%s.attr" % sub()
    if r < 0.84:
        return "lambda q, r=1: " + sub()
    if r < 0.88:
        return "[%s for v in %s if %s]" % (sub(), sub(), sub())
    if r < 0.92:
        return "(yield %s)" % sub()
    if r < 0.95:
        return "(w := %s)" % sub()
    return "%s, %s" % (sub(), sub())


STATEMENTS = ["x = {e}", "x, y = {e}", "x[i] += {e}", "return {e}", "{e}", "if {e}:\n        pass",
              "while {e}:\n        break", "for i in {e}:\n        continue", "assert {e}", "del x[{e}]",
              "x: int = {e}", "with {e} as q:\n        pass", "raise {e}", "a = b = {e}", "x.y = {e}; pass"]


def random_function(rng):
    lines = []
    for _ in range(rng.randint(1, 3)):
        lines.append("    " + rng.choice(STATEMENTS).format(e=random_expression(rng)))
    return "def k(a, b):\n" + "\n".join(lines) + "\n"


def mutate(rng, text):
    """A nearby, often invalid, source: a deleted, duplicated or swapped token."""
    for _ in range(rng.randint(1, 3)):
        if not text:
            break
        i = rng.randrange(len(text))
        op = rng.random()
        if op < 0.4:
            text = text[:i] + text[i + 1:]
        elif op < 0.7:
            text = text[:i] + rng.choice(["(", ")", ":", ",", " ", "\n", "=", "*", "if ", "\\\n", "'", "    "]) + text[i:]
        else:
            j = rng.randrange(len(text))
            text = text[:i] + text[j] + text[i + 1:]
    return text


# ------------------------------------------------------------------- main

def run(batch_dump, sources):
    data = "\0".join(sources).encode("utf-8", "surrogatepass")
    out = subprocess.run([batch_dump], input=data, capture_output=True, check=True).stdout.decode("utf-8", "replace")
    results = []
    for line in out.split("\n")[:-1]:
        if line.startswith("RT "):
            results[-1] = ("RT", line[3:], results[-1][1], "")
        else:
            kind, _, rest = line.partition(" ")
            dump_text, _, spans = rest.partition("\t")
            results.append((kind, dump_text, spans.strip()))
    assert len(results) == len(sources), (len(results), len(sources))
    return results


def main():
    warnings.simplefilter("ignore")
    ap = argparse.ArgumentParser()
    ap.add_argument("batch_dump")
    ap.add_argument("--stdlib", default=os.path.dirname(os.__file__))
    ap.add_argument("--no-stdlib", action="store_true")
    ap.add_argument("--random", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=10)
    ap.add_argument("--spans", action="store_true", help="also compare the spans of every node")
    args = ap.parse_args()

    sources = [] if args.no_stdlib else list(stdlib_functions(args.stdlib))
    n_stdlib = len(sources)
    rng = random.Random(args.seed)
    for _ in range(args.random):
        f = random_function(rng)
        sources.append(f)
        sources.append(mutate(rng, f))

    results = run(args.batch_dump, sources)
    failures = 0
    for i, (src, res) in enumerate(zip(sources, results)):
        want = expected_dump(src)
        kind = res[0]
        problem = None
        if want == "f-string" or (want is not None and "\\N{" in src):
            continue  # f-string internals and \N{name} escapes are not decoded
        # CPython's compiler stops at its first error, which may come before
        # the compile-stage error Tack reports.
        compile_stage = (kind == "ERR" and last_compile_failed and
                         any(m in res[1] for m in COMPILE_STAGE_ERRORS))
        # CPython never compiles the annotation of a local `x: T = v`, so it
        # misses a repeated keyword there; Tack reports it.
        if kind == "ERR" and "keyword argument repeated" in res[1] and re.search(r"^\s*[\w.]+\s*:[^=]*\(", src, re.M):
            compile_stage = True
        if kind == "RT":
            problem = "round trip differs:\n  printed: %s\n  parsed:  %s" % (res[1], res[2])
        elif want is None and kind == "OK":
            problem = "Tack accepts what CPython rejects:\n  %s" % res[1]
        elif want is not None and kind == "ERR":
            if not compile_stage:
                problem = "Tack rejects what CPython accepts: " + res[1]
        elif want is not None and normalize(res[1]) != want:
            problem = "trees differ:\n  tack:    %s\n  cpython: %s" % (res[1], want)
        elif want is not None and args.spans and res[2] != expected_spans(src):
            got, exp = res[2].split(), expected_spans(src).split()
            first = next((i for i, (g, x) in enumerate(zip(got, exp)) if g != x), min(len(got), len(exp)))
            problem = "spans differ at node %d:\n  tack:    %s\n  cpython: %s" % (
                first, " ".join(got[first:first + 3]), " ".join(exp[first:first + 3]))
        if problem:
            failures += 1
            if failures <= args.show:
                print("---- %s #%d\n%s\n%s" % ("stdlib" if i < n_stdlib else "random", i, src, problem))
    print("%d sources (%d from the standard library), %d mismatches" % (len(sources), n_stdlib, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
