"""One random change to a generated program's syntax tree."""

import ast
import random
import warnings
from dataclasses import dataclass

import differential
import typed_expressions

NAMES = ["i", "a", "o", "a0", "o1", "n0", "t0", "x", "undefined_name", "tack", "math", "len", "range", "min",
         "print", "True", "None", "k", "w0", "res", "idx"]
CONSTANTS = [0, -1, 7, 2**31, 2**63, 2**64 - 1, 2**64, -(2**63) - 1, 1.5, -0.0, float("inf"), True, None, "s",
             b"b", 1j, 3.0e38]
CALLS = ["tack.vec3({e})", "tack.f64({e})", "tack.i8({e})", "tack.u64({e})", "abs({e})", "len({e})", "math.sqrt({e})",
         "min({e})", "max({e}, {e}, {e})", "range({e})", "int({e})", "float({e})", "tack.atomic_add({e}, 0, 1)",
         "tack.mat2({e}, {e}, {e}, {e})", "pow({e}, -2)", "print({e})", "tack.local_array(4, {e})", "{e}.x",
         "{e}.shape[0]", "tack.ndindex({e})", "tack.thread_id()", "tack.barrier()", "({e}, {e})", "[{e}]",
         "{e}[0]", "{e}[{e}, {e}]", "{e}[1:2]", "-{e}", "not {e}", "({e} if {e} else 1.5)", "{e} @ {e}",
         "{e} ** 70", "{e} << 64", "{e} // 0", "{e} % 0.0", "{e} / 0", "tack.i64({e}) * tack.u64(1)"]
OPERATORS = [ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.LShift, ast.RShift,
             ast.BitOr, ast.BitXor, ast.BitAnd, ast.MatMult]
STATEMENTS = ["break", "continue", "return", "return 1", "return a[0]", "pass", "x = 1", "x = tack.vec3(1.0)",
              "o[i] = 1.5", "o[i, i] = 1", "o[0] += 1", "i = i + 1", "n0 = 2.5", "del x", "global x",
              "while True:\n    pass", "for q in range(3):\n    break", "if 1:\n    x = 2", "t = (1, 2)",
              "a, b = 1", "x: int = 3", "assert i", "lambda: 1", "yield 1", "import math",
              "o[i] = tack.atomic_add(o, i, 1)", "tack.barrier()", "print(i, o)", "x = o", "o = a",
              "with x:\n    pass", "try:\n    pass\nexcept Exception:\n    pass"]


@dataclass
class Mutant:
    seed: int
    kernel: str
    source: str  # the mutated helpers and kernel
    args: object  # () -> the kernel's arguments
    change: str  # what was changed, for the report


def base_program(seed):
    """(kernel name, source, arguments) of the program the mutant starts from."""
    if seed % 2:
        p = differential.generate(seed // 2)
        inputs = differential.runner.inputs_for(p.seed)

        def args():
            import tack

            return [tack.array(inputs.arrays[k]) for k in ("a", "b", "o", "p")] + [inputs.n0, inputs.n1]

        return p.kernel, p.source, args
    p = typed_expressions.generate(seed // 2)
    arrays, n = typed_expressions.runner.inputs_for(p)

    def args():
        inputs, outputs, _ = typed_expressions.runner.kernel_arrays(p, arrays, n)
        return p.arguments(inputs, outputs, n)

    return p.kernel, p.source, args


def _parse_expr(text):
    return ast.parse(text, mode="eval").body


def _parse_stmts(text):
    return ast.parse(text).body


class _Mutator:
    def __init__(self, rng, tree):
        self.rng = rng
        self.tree = tree
        self.functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]

    def walk(self):
        """Every node of the functions' bodies (not their decorators)."""
        for f in self.functions:
            for stmt in f.body:
                yield from ast.walk(stmt)

    def nodes(self, kind):
        return [n for n in self.walk() if isinstance(n, kind)]

    def expression_slots(self):
        """(parent, field, index or None) of every expression in a function body."""
        slots = []
        for parent in self.walk():
            for field, value in ast.iter_fields(parent):
                if isinstance(value, ast.expr) and not isinstance(value, ast.Starred):
                    slots.append((parent, field, None))
                elif isinstance(value, list):
                    slots += [(parent, field, k) for k, v in enumerate(value) if isinstance(v, ast.expr)]
        return slots

    def statement_lists(self):
        lists = [f.body for f in self.functions]
        for node in self.walk():
            for field in ("body", "orelse"):
                value = getattr(node, field, None)
                if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                    lists.append(value)
        return lists

    @staticmethod
    def get(slot):
        parent, field, k = slot
        return getattr(parent, field) if k is None else getattr(parent, field)[k]

    @staticmethod
    def put(slot, node):
        parent, field, k = slot
        if k is None:
            setattr(parent, field, node)
        else:
            getattr(parent, field)[k] = node

    def mutate(self):
        kind = self.rng.choice(["name", "constant", "call", "operator", "delete", "move", "duplicate", "insert",
                                "parameters", "loop", "target", "keyword"])
        return getattr(self, "m_" + kind)()

    def m_name(self):
        names = self.nodes(ast.Name)
        n = self.rng.choice(names)
        new = self.rng.choice(NAMES)
        was, n.id = n.id, new
        return f"name {was} -> {new} at line {n.lineno}"

    def m_constant(self):
        slots = self.expression_slots()
        slot = self.rng.choice(slots)
        value = self.rng.choice(CONSTANTS)
        self.put(slot, ast.Constant(value))
        return f"expression at line {self.get(slot).lineno if hasattr(self.get(slot), 'lineno') else '?'} -> {value!r}"

    def m_call(self):
        slot = self.rng.choice(self.expression_slots())
        inner = ast.unparse(self.get(slot))
        text = self.rng.choice(CALLS).replace("{e}", f"({inner})")
        self.put(slot, _parse_expr(text))
        return f"{inner} -> {text}"

    def m_operator(self):
        ops = self.nodes((ast.BinOp, ast.AugAssign))
        if not ops:
            return self.m_call()
        node = self.rng.choice(ops)
        node.op = self.rng.choice(OPERATORS)()
        return f"operator at line {node.lineno} -> {type(node.op).__name__}"

    def m_delete(self):
        body = self.rng.choice(self.statement_lists())
        k = self.rng.randrange(len(body))
        gone = body[k]
        body[k] = ast.Pass()
        return f"deleted line {gone.lineno}"

    def m_move(self):
        lists = self.statement_lists()
        source, target = self.rng.choice(lists), self.rng.choice(lists)
        k = self.rng.randrange(len(source))
        node = source[k]
        if target is source:
            source[k], source[-1] = source[-1], source[k]
            return f"swapped line {node.lineno} to its block's end"
        if any(getattr(n, f, None) is target for n in ast.walk(node) for f in ("body", "orelse")):
            return self.m_delete()  # the target block is inside the statement
        source[k] = ast.Pass()
        target.insert(self.rng.randrange(len(target) + 1), node)
        return f"moved line {node.lineno}"

    def m_duplicate(self):
        body = self.rng.choice(self.statement_lists())
        k = self.rng.randrange(len(body))
        body.insert(self.rng.randrange(len(body) + 1), ast.parse(ast.unparse(body[k])).body[0])
        return f"duplicated line {body[k].lineno}"

    def m_insert(self):
        body = self.rng.choice(self.statement_lists())
        text = self.rng.choice(STATEMENTS)
        stmts = _parse_stmts(text)
        at = self.rng.randrange(len(body) + 1)
        body[at:at] = stmts
        return f"inserted {text!r}"

    def m_parameters(self):
        f = self.rng.choice(self.functions)
        params = f.args.args
        if params and self.rng.random() < 0.5:
            gone = params.pop(self.rng.randrange(len(params)))
            return f"dropped parameter {gone.arg} of {f.name}"
        params.insert(self.rng.randrange(len(params) + 1), ast.arg(self.rng.choice(["extra", "i", "tack", "a"])))
        return f"added a parameter to {f.name}"

    def m_loop(self):
        loops = self.nodes(ast.For)
        if not loops:
            return self.m_insert()
        loop = self.rng.choice(loops)
        text = self.rng.choice(["range(0)", "range(1, 2, 0)", "range(-1)", "range(2.5)", "range(1, 2, 3, 4)",
                                "tack.ndindex(2, 3)", "[1, 2]", "range(len(o), 0, -1)", "x", "range(2**64)",
                                "range(n0, n1, n0)"])
        loop.iter = _parse_expr(text)
        return f"loop at line {loop.lineno} over {text}"

    def m_target(self):
        assigns = self.nodes(ast.Assign)
        if not assigns:
            return self.m_insert()
        node = self.rng.choice(assigns)
        text = self.rng.choice(["o[i]", "o[i, 0]", "a", "i", "x, y", "n0", "o[i].x", "tack", "len", "o[:]", "[p]"])
        node.targets = [_parse_expr(text)]
        for t in ast.walk(node.targets[0]):
            if isinstance(t, (ast.Name, ast.Subscript, ast.Attribute, ast.Tuple, ast.List)):
                t.ctx = ast.Store()
        return f"assignment at line {node.lineno} to {text}"

    def m_keyword(self):
        calls = self.nodes(ast.Call)
        if not calls:
            return self.m_call()
        call = self.rng.choice(calls)
        call.keywords.append(ast.keyword(arg=self.rng.choice(["dtype", "x", "step"]), value=ast.Constant(1)))
        return f"keyword argument to the call at line {call.lineno}"


def mutant(seed):
    """The program of `seed` with one random change (a change that leaves
    text Python cannot parse is retried with another)."""
    kernel, source, args = base_program(seed)
    rng = random.Random(seed * 31 + 5)
    for _ in range(20):
        tree = ast.parse(source)
        change = _Mutator(rng, tree).mutate()
        ast.fix_missing_locations(tree)
        try:
            text = ast.unparse(tree)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)  # what CPython notes of a mutant's text
                compile(text, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError, AttributeError):
            continue
        return Mutant(seed, kernel, text, args, change)
    return Mutant(seed, kernel, source, args, "none")
