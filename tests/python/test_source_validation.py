"""Issue 3, rejection with diagnostics: every construct outside the kernel
surface is rejected with its own diagnostic, never dropped.

Each rejection test asserts the exception type, the construct, the kernel or
device function, and the absolute line:column of the offending code. The
line is found through a marker comment at its end (``# V-name``) and the
column through the text the caret must point at, so the expectations follow
the source when it moves. Kernels compile at their first call, so the
definition and the call both sit inside ``pytest.raises``.

Tests named ``test_pending_*`` exercise constructs the contract lists that the
compiler does not build yet; they fail until those land, and say so by name.
"""

from pathlib import Path

import numpy as np
import pytest
import tack
from backends import FRONTEND_ONLY

SOURCE = Path(__file__).read_text().splitlines()
FILE = str(Path(__file__).resolve())


def i32(n=4):
    return tack.zeros(n, dtype=tack.i32)


def marked_line(marker):
    """(1-based line number, text) of the one line ending in `# marker`."""
    hits = [n for n, text in enumerate(SOURCE, 1) if text.rstrip().endswith("# " + marker)]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times"
    return hits[0], SOURCE[hits[0] - 1]


def check_diagnostic(error, exc_type, *, construct, function, marker, at, kind="kernel", hint=None, nth=0):
    """The raised error is `exc_type`, names `construct` and `function`, and
    points at the `nth` occurrence of `at` on the line marked `marker`."""
    e = error.value
    assert isinstance(e, exc_type), f"{type(e).__name__} is not {exc_type.__name__}: {e}"
    line, text = marked_line(marker)
    column = 0
    for _ in range(nth + 1):
        column = text.index(at, column) + 1
    rendered = str(e)
    where = f"{FILE}:{line}:{column} in {kind} '{function}': "
    assert rendered.splitlines()[0].startswith(where), f"expected {where!r}, got:\n{rendered}"
    assert (e.filename, e.line, e.column) == (FILE, line, column), rendered
    assert (e.function, e.function_kind) == (function, kind), rendered
    assert construct.lower() in (e.construct + " " + e.message).lower(), rendered
    # The source line follows, then a caret under the column.
    shown, caret = rendered.splitlines()[1:3]
    assert shown.strip() == text.strip(), rendered
    text_indent = len(text) - len(text.lstrip())
    assert caret.lstrip().startswith("^"), rendered
    assert caret.index("^") - shown.index(text.strip()) == column - 1 - text_indent, rendered
    if hint is not None:
        assert hint.lower() in (e.hint or "").lower(), rendered
        assert "\nhint: " in rendered, rendered
    return e


# ------------------------------------------------------------ statements


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_raise_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_raise(a):
            for i in range(len(a)):
                raise ValueError(i)  # V-raise

        kernel_with_raise(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="raise", function="kernel_with_raise",
                     marker="V-raise", at="raise")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_try_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_try(a):
            for i in range(len(a)):
                try:  # V-try
                    a[i] = 1
                except ZeroDivisionError:
                    pass

        kernel_with_try(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="try", function="kernel_with_try",
                     marker="V-try", at="try")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_with_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_with(a):
            for i in range(len(a)):
                with open("x") as f:  # V-with
                    a[i] = 1

        kernel_with_with(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="with", function="kernel_with_with",
                     marker="V-with", at="with")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_yield_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_yield(a):
            for i in range(len(a)):
                yield i  # V-yield

        kernel_with_yield(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="yield", function="kernel_with_yield",
                     marker="V-yield", at="yield")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_generator_expression_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_generator(a):
            for i in range(len(a)):
                a[i] = max(k for k in range(3))  # V-genexp

        kernel_with_generator(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="generator expression",
                     function="kernel_with_generator", marker="V-genexp", at="k for")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_lambda_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_lambda(a):
            for i in range(len(a)):
                f = lambda v: v + 1  # V-lambda
                a[i] = f(i)

        kernel_with_lambda(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="lambda", function="kernel_with_lambda",
                     marker="V-lambda", at="lambda")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_import_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_import(a):
            for i in range(len(a)):
                import math  # V-import

                a[i] = math.floor(1.5)

        kernel_with_import(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="import", function="kernel_with_import",
                     marker="V-import", at="import")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_from_import_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_from_import(a):
            from math import floor  # V-from-import

            for i in range(len(a)):
                a[i] = floor(1.5)

        kernel_with_from_import(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="import", function="kernel_with_from_import",
                     marker="V-from-import", at="from")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_assert_in_kernel_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_assert(a):
            for i in range(len(a)):
                assert i >= 0  # V-assert-kernel
                a[i] = i

        kernel_with_assert(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="assert", function="kernel_with_assert",
                     marker="V-assert-kernel", at="assert", hint="assert")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_assert_in_device_function_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def checked(v):
            assert v >= 0  # V-assert-func
            return v

        @tack.kernel
        def kernel_calling_checked(a):
            for i in range(len(a)):
                a[i] = checked(i)

        kernel_calling_checked(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="assert", function="checked",
                     kind="device function", marker="V-assert-func", at="assert")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_nested_def_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_nested_def(a):
            def inner(v):  # V-nested-def
                return v

            for i in range(len(a)):
                a[i] = inner(i)

        kernel_with_nested_def(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="def", function="kernel_with_nested_def",
                     marker="V-nested-def", at="def")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_nested_class_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_nested_class(a):
            for i in range(len(a)):
                class Point:  # V-nested-class
                    x = 1

                a[i] = 1

        kernel_with_nested_class(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="class", function="kernel_with_nested_class",
                     marker="V-nested-class", at="class")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_list_comprehension_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_list_comprehension(a):
            for i in range(len(a)):
                a[i] = len([k for k in range(3)])  # V-listcomp

        kernel_with_list_comprehension(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="comprehension",
                     function="kernel_with_list_comprehension", marker="V-listcomp", at="[k")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_set_and_dict_comprehensions_are_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_set_comprehension(a):
            for i in range(len(a)):
                s = {k for k in range(3)}  # V-setcomp
                a[i] = 1

        kernel_with_set_comprehension(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="set comprehension",
                     function="kernel_with_set_comprehension", marker="V-setcomp", at="{")

    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_dict_comprehension(a):
            for i in range(len(a)):
                d = {k: k for k in range(3)}  # V-dictcomp
                a[i] = 1

        kernel_with_dict_comprehension(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="dict comprehension",
                     function="kernel_with_dict_comprehension", marker="V-dictcomp", at="{")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_annotated_assignment_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_annotated_assignment(a):
            for i in range(len(a)):
                x: int = i  # V-annassign
                a[i] = x

        kernel_with_annotated_assignment(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="annotated assignment",
                     function="kernel_with_annotated_assignment", marker="V-annassign", at="x:")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_keyword_argument_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def scaled(v, k):
            return v * k

        @tack.kernel
        def kernel_with_keyword_argument(a):
            for i in range(len(a)):
                a[i] = scaled(i, k=2)  # V-kwarg

        kernel_with_keyword_argument(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="keyword argument",
                     function="kernel_with_keyword_argument", marker="V-kwarg", at="k=2", hint="positional")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_double_star_argument_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_double_star_argument(a, options):
            for i in range(len(a)):
                a[i] = max(i, **options)  # V-kwargs-arg

        kernel_with_double_star_argument(i32(), 1)
    check_diagnostic(error, tack.UnsupportedError, construct="**", function="kernel_with_double_star_argument",
                     marker="V-kwargs-arg", at="**options")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_starred_argument_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_starred_argument(a, pair):
            for i in range(len(a)):
                a[i] = max(*pair)  # V-starred-arg

        kernel_with_starred_argument(i32(), 1)
    check_diagnostic(error, tack.UnsupportedError, construct="starred", function="kernel_with_starred_argument",
                     marker="V-starred-arg", at="*pair")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_starred_assignment_target_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_starred_target(a):
            for i in range(len(a)):
                x, *rest = i, 1, 2  # V-starred-target
                a[i] = x

        kernel_with_starred_target(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="starred", function="kernel_with_starred_target",
                     marker="V-starred-target", at="*rest")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_global_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_global(a):
            global SOME_COUNTER  # V-global
            for i in range(len(a)):
                a[i] = 1

        kernel_with_global(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="global", function="kernel_with_global",
                     marker="V-global", at="global")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_nonlocal_is_rejected():
    counter = 0

    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_nonlocal(a):
            nonlocal counter  # V-nonlocal
            for i in range(len(a)):
                a[i] = 1

        kernel_with_nonlocal(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="nonlocal", function="kernel_with_nonlocal",
                     marker="V-nonlocal", at="nonlocal")
    assert counter == 0


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_del_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_del(a):
            for i in range(len(a)):
                x = i
                del x  # V-del
                a[i] = 1

        kernel_with_del(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="del", function="kernel_with_del",
                     marker="V-del", at="del")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_match_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_match(a):
            for i in range(len(a)):
                match i:  # V-match
                    case 0:
                        a[i] = 1
                    case _:
                        a[i] = 2

        kernel_with_match(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="match", function="kernel_with_match",
                     marker="V-match", at="match")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_for_else_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_for_else(a):
            for i in range(len(a)):
                for k in range(3):
                    a[i] = k
                else:
                    a[i] = 7  # V-for-else

        kernel_with_for_else(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="for-else", function="kernel_with_for_else",
                     marker="V-for-else", at="a[i]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_while_else_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_while_else(a):
            for i in range(len(a)):
                while a[i] < 3:
                    a[i] += 1
                else:
                    a[i] = 7  # V-while-else

        kernel_with_while_else(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="while-else", function="kernel_with_while_else",
                     marker="V-while-else", at="a[i]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_async_def_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        async def kernel_declared_async(a):  # V-async
            for i in range(len(a)):
                a[i] = 1

        kernel_declared_async(i32())
    e = check_diagnostic(error, tack.UnsupportedError, construct="async", function="kernel_declared_async",
                         marker="V-async", at="async")


# ------------------------------------------------------------ expressions


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_matmul_on_numbers_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_scalar_matmul(a, b):
            for i in range(len(a)):
                a[i] = a[i] @ b[i]  # V-matmul

        kernel_with_scalar_matmul(i32(), i32())
    check_diagnostic(error, tack.UnsupportedError, construct="@", function="kernel_with_scalar_matmul",
                     marker="V-matmul", at="a[i] @")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_augmented_matmul_on_numbers_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_scalar_imatmul(a):
            for i in range(len(a)):
                x = i
                x @= 2  # V-imatmul
                a[i] = x

        kernel_with_scalar_imatmul(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="@", function="kernel_with_scalar_imatmul",
                     marker="V-imatmul", at="x @=")


@pytest.mark.parametrize("operator", ["is", "is not"])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_is_operator_is_rejected(operator):
    with pytest.raises(tack.UnsupportedError) as error:
        if operator == "is":

            @tack.kernel
            def kernel_with_is(a):
                for i in range(len(a)):
                    if i is 0:  # V-is
                        a[i] = 1

        else:

            @tack.kernel
            def kernel_with_is(a):
                for i in range(len(a)):
                    if i is not 0:  # V-is-not
                        a[i] = 1

        kernel_with_is(i32())
    marker = "V-is" if operator == "is" else "V-is-not"
    check_diagnostic(error, tack.UnsupportedError, construct=f"'{operator}'", function="kernel_with_is",
                     marker=marker, at="i is", hint="==")


@pytest.mark.parametrize("operator", ["in", "not in"])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_in_operator_is_rejected(operator):
    with pytest.raises(tack.UnsupportedError) as error:
        if operator == "in":

            @tack.kernel
            def kernel_with_in(a, b):
                for i in range(len(a)):
                    if i in b:  # V-in
                        a[i] = 1

        else:

            @tack.kernel
            def kernel_with_in(a, b):
                for i in range(len(a)):
                    if i not in b:  # V-not-in
                        a[i] = 1

        kernel_with_in(i32(), i32())
    check_diagnostic(error, tack.UnsupportedError, construct=f"'{operator}'", function="kernel_with_in",
                     marker="V-in" if operator == "in" else "V-not-in", at="i ")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_string_value_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_string(a):
            for i in range(len(a)):
                label = "row"  # V-string
                a[i] = i

        kernel_with_string(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="string", function="kernel_with_string",
                     marker="V-string", at='"row"')


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_string_statement_after_the_docstring_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_second_string(a):
            """The docstring."""
            "not a docstring"  # V-string-stmt
            for i in range(len(a)):
                a[i] = i

        kernel_with_second_string(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="string", function="kernel_with_second_string",
                     marker="V-string-stmt", at='"not')


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_fstring_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_fstring(a):
            for i in range(len(a)):
                label = f"row {i}"  # V-fstring
                a[i] = i

        kernel_with_fstring(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="f-string", function="kernel_with_fstring",
                     marker="V-fstring", at='f"')


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_walrus_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_walrus(a):
            for i in range(len(a)):
                if (j := i + 1) > 2:  # V-walrus
                    a[i] = j

        kernel_with_walrus(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="walrus", function="kernel_with_walrus",
                     marker="V-walrus", at="j :=")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_slice_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_slice(a, b):
            for i in range(len(a)):
                b[i] = a[1:3]  # V-slice

        kernel_with_slice(i32(), i32())
    check_diagnostic(error, tack.UnsupportedError, construct="slice", function="kernel_with_slice",
                     marker="V-slice", at="1:3")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_slice_store_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_slice_store(a):
            for i in range(len(a)):
                a[:] = 0  # V-slice-store

        kernel_with_slice_store(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="slice", function="kernel_with_slice_store",
                     marker="V-slice-store", at=":")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_none_value_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_none(a):
            for i in range(len(a)):
                x = None  # V-none
                a[i] = i

        kernel_with_none(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="None", function="kernel_with_none",
                     marker="V-none", at="None")


@pytest.mark.parametrize(
    "marker, at, construct",
    [
        ("V-dict-display", "{", "dict"),
        ("V-set-display", "{", "set"),
        ("V-ellipsis", "...", "ellipsis"),
        ("V-complex", "2j", "complex"),
    ],
)
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_other_python_values_are_rejected(marker, at, construct):
    with pytest.raises(tack.UnsupportedError) as error:
        if marker == "V-dict-display":

            @tack.kernel
            def kernel_with_value(a):
                for i in range(len(a)):
                    d = {1: i}  # V-dict-display

        elif marker == "V-set-display":

            @tack.kernel
            def kernel_with_value(a):
                for i in range(len(a)):
                    s = {i, 1}  # V-set-display

        elif marker == "V-ellipsis":

            @tack.kernel
            def kernel_with_value(a):
                for i in range(len(a)):
                    e = ...  # V-ellipsis

        else:

            @tack.kernel
            def kernel_with_value(a):
                for i in range(len(a)):
                    z = 2j  # V-complex

        kernel_with_value(i32())
    check_diagnostic(error, tack.UnsupportedError, construct=construct, function="kernel_with_value",
                     marker=marker, at=at)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_await_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        async def kernel_with_await(a):
            for i in range(len(a)):
                a[i] = await i  # V-await

        kernel_with_await(i32())
    # The function's own `async` is reported first, at the def line.
    assert "async" in str(error.value)
    assert error.value.function == "kernel_with_await"


# ------------------------------------------------------------ parameters


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_parameter_default_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_default(a, scale=2):  # V-default
            for i in range(len(a)):
                a[i] = scale

        kernel_with_default(i32(), 3)
    check_diagnostic(error, tack.UnsupportedError, construct="default", function="kernel_with_default",
                     marker="V-default", at="2)")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_varargs_parameter_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_varargs(a, *rest):  # V-varargs
            for i in range(len(a)):
                a[i] = 1

        kernel_with_varargs(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="*args", function="kernel_with_varargs",
                     marker="V-varargs", at="*rest")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_kwargs_parameter_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_kwargs(a, **options):  # V-kwargs-param
            for i in range(len(a)):
                a[i] = 1

        kernel_with_kwargs(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="**kwargs", function="kernel_with_kwargs",
                     marker="V-kwargs-param", at="**options")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_keyword_only_parameter_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_keyword_only(a, *, scale):  # V-kwonly
            for i in range(len(a)):
                a[i] = scale

        kernel_with_keyword_only(i32(), 3)
    check_diagnostic(error, tack.UnsupportedError, construct="keyword-only", function="kernel_with_keyword_only",
                     marker="V-kwonly", at="scale")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_device_function_parameter_default_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def offset_by(v, k=1):  # V-func-default
            return v + k

        @tack.kernel
        def kernel_calling_offset_by(a):
            for i in range(len(a)):
                a[i] = offset_by(i, 2)

        kernel_calling_offset_by(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="default", function="offset_by",
                     kind="device function", marker="V-func-default", at="1)")


# ------------------------------------------------------------ control flow


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_return_inside_a_loop_of_a_device_function_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def first_negative(a, n):
            for k in range(n):
                if a[k] < 0:
                    return k  # V-return-in-loop
            return -1

        @tack.kernel
        def kernel_calling_first_negative(a, found):
            for i in range(len(found)):
                found[i] = first_negative(a, len(a))

        kernel_calling_first_negative(i32(), i32(1))
    check_diagnostic(error, tack.UnsupportedError, construct="return inside a loop", function="first_negative",
                     kind="device function", marker="V-return-in-loop", at="return")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_return_inside_a_while_of_a_device_function_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def halve_until_small(v):
            while v > 10:
                v = v // 2
                if v < 20:
                    return v  # V-return-in-while
            return v

        @tack.kernel
        def kernel_calling_halve_until_small(a):
            for i in range(len(a)):
                a[i] = halve_until_small(a[i])

        kernel_calling_halve_until_small(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="return inside a loop", function="halve_until_small",
                     kind="device function", marker="V-return-in-while", at="return")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_break_from_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_breaking_parallel_loop(a):
            for i in range(len(a)):
                if i > 2:
                    break  # V-break
                a[i] = 1

        kernel_breaking_parallel_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="break", function="kernel_breaking_parallel_loop",
                     marker="V-break", at="break", hint="continue")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_break_from_the_parallel_loop_through_a_device_function_is_rejected():
    # Python compiles `break` only inside a loop, so a device function's
    # break always leaves one of its own loops; a break straight in the
    # parallel body is the kernel's.
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_breaking_in_nested_branch(a):
            for i in range(len(a)):
                if i > 2:
                    if i > 3:
                        a[i] = 2
                    else:
                        break  # V-break-nested
                a[i] = 1

        kernel_breaking_in_nested_branch(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="break", function="kernel_breaking_in_nested_branch",
                     marker="V-break-nested", at="break", hint="continue")


def test_break_from_a_sequential_loop_is_accepted(backend):
    @tack.kernel
    def first_k_at_least_i(out):
        for i in range(len(out)):
            found = -1
            for k in range(10):
                if k * k >= i:
                    found = k
                    break
            out[i] = found

    out = i32(20)
    first_k_at_least_i(out)
    expected = [next(k for k in range(10) if k * k >= i) for i in range(20)]
    np.testing.assert_array_equal(out.numpy(), expected)


@pytest.mark.parametrize("where", ["branch", "before-loop", "after-loop"])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_non_trailing_kernel_return_is_rejected(where):
    with pytest.raises(tack.UnsupportedError) as error:
        if where == "branch":

            @tack.kernel
            def kernel_with_early_return(a):
                for i in range(len(a)):
                    if i > 2:
                        return  # V-return-branch
                    a[i] = 1

        elif where == "before-loop":

            @tack.kernel
            def kernel_with_early_return(a):
                if len(a) == 0:
                    return  # V-return-before
                for i in range(len(a)):
                    a[i] = 1

        else:

            @tack.kernel
            def kernel_with_early_return(a) -> int:
                for i in range(len(a)):
                    a[i] = 1
                return 1  # V-return-after
                x = 2

        kernel_with_early_return(i32())
    marker = {"branch": "V-return-branch", "before-loop": "V-return-before", "after-loop": "V-return-after"}[where]
    check_diagnostic(error, tack.UnsupportedError, construct="return", function="kernel_with_early_return",
                     marker=marker, at="return")


@pytest.mark.parametrize("step", ["0", "-1", "-3"])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_literal_zero_or_negative_parallel_step_is_rejected(step):
    with pytest.raises(tack.KernelValueError) as error:
        if step == "0":

            @tack.kernel
            def kernel_with_bad_step(a):
                for i in range(0, len(a), 0):  # V-step-0
                    a[i] = 1

        elif step == "-1":

            @tack.kernel
            def kernel_with_bad_step(a):
                for i in range(len(a), 0, -1):  # V-step--1
                    a[i] = 1

        else:

            @tack.kernel
            def kernel_with_bad_step(a):
                for i in range(len(a), 0, -3):  # V-step--3
                    a[i] = 1

        kernel_with_bad_step(i32())
    check_diagnostic(error, tack.KernelValueError, construct="step", function="kernel_with_bad_step",
                     marker=f"V-step-{step}", at=step, nth=1 if step == "0" else 0)


@pytest.mark.parametrize("step", ["0", "-1"])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_literal_zero_or_negative_sequential_step_is_rejected(step):
    with pytest.raises(tack.KernelValueError) as error:
        if step == "0":

            @tack.kernel
            def kernel_with_bad_inner_step(a):
                for i in range(len(a)):
                    for k in range(0, 4, 0):  # V-inner-step-0
                        a[i] += k

        else:

            @tack.kernel
            def kernel_with_bad_inner_step(a):
                for i in range(len(a)):
                    for k in range(4, 0, -1):  # V-inner-step--1
                        a[i] += k

        kernel_with_bad_inner_step(i32())
    check_diagnostic(error, tack.KernelValueError, construct="step", function="kernel_with_bad_inner_step",
                     marker=f"V-inner-step-{step}", at=step, nth=1 if step == "0" else 0)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_missing_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_without_loop(a):  # V-no-loop
            x = 1
            a[0] = x

        kernel_without_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="parallel loop", function="kernel_without_loop",
                     marker="V-no-loop", at="def")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_second_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_two_loops(a):
            for i in range(len(a)):
                a[i] = 1
            for j in range(len(a)):  # V-second-loop
                a[j] = 2

        kernel_with_two_loops(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="second parallel loop", function="kernel_with_two_loops",
                     marker="V-second-loop", at="for")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_parallel_loop_nested_in_a_branch_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_loop_in_branch(a, go):
            if go > 0:
                for i in range(len(a)):  # V-loop-in-if
                    a[i] = 1

        kernel_with_loop_in_branch(i32(), 1)
    check_diagnostic(error, tack.UnsupportedError, construct="nested parallel loop",
                     function="kernel_with_loop_in_branch", marker="V-loop-in-if", at="for")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_parallel_loop_nested_in_a_while_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_loop_in_while(a):
            n = 0
            while n < 1:
                n += 1
                for i in range(len(a)):  # V-loop-in-while
                    a[i] = 1

        kernel_with_loop_in_while(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="nested parallel loop",
                     function="kernel_with_loop_in_while", marker="V-loop-in-while", at="for")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_a_loop_in_a_branch_beside_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_extra_loop_in_branch(a, go):
            for i in range(len(a)):
                a[i] = 1
            if go > 0:
                for j in range(len(a)):  # V-extra-loop-in-if
                    a[j] = 2

        kernel_with_extra_loop_in_branch(i32(), 1)
    check_diagnostic(error, tack.UnsupportedError, construct="nested parallel loop",
                     function="kernel_with_extra_loop_in_branch", marker="V-extra-loop-in-if", at="for")


# ------------------------------------------ validation precedes lowering


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_unreachable_statement_in_a_device_function_is_validated():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def returns_before_lambda(v):
            return v
            f = lambda: 1  # V-unreachable-lambda

        @tack.kernel
        def kernel_calling_returns_before_lambda(a):
            for i in range(len(a)):
                a[i] = returns_before_lambda(i)

        kernel_calling_returns_before_lambda(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="lambda", function="returns_before_lambda",
                     kind="device function", marker="V-unreachable-lambda", at="lambda")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_statement_after_a_branch_that_always_returns_is_validated():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def both_arms_return(v):
            if v > 0:
                return v
            else:
                return -v
            del v  # V-unreachable-del

        @tack.kernel
        def kernel_calling_both_arms_return(a):
            for i in range(len(a)):
                a[i] = both_arms_return(i)

        kernel_calling_both_arms_return(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="del", function="both_arms_return",
                     kind="device function", marker="V-unreachable-del", at="del")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_statement_in_a_never_taken_branch_is_validated():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_dead_branch(a):
            for i in range(len(a)):
                if False:
                    import os  # V-dead-branch
                a[i] = 1

        kernel_with_dead_branch(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="import", function="kernel_with_dead_branch",
                     marker="V-dead-branch", at="import")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_statement_after_continue_is_validated():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_code_after_continue(a):
            for i in range(len(a)):
                continue
                assert i < 0  # V-after-continue

        kernel_with_code_after_continue(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="assert", function="kernel_with_code_after_continue",
                     marker="V-after-continue", at="assert")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_the_first_unsupported_construct_in_source_order_is_reported():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_with_two_problems(a):
            for i in range(len(a)):
                x = [k for k in range(i)]  # V-first-problem
                assert i > 0

        kernel_with_two_problems(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="comprehension", function="kernel_with_two_problems",
                     marker="V-first-problem", at="[k")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_unsupported_construct_in_a_device_function_never_called_on_a_path_is_rejected():
    # The call is in a branch no iteration takes; the callee is still checked.
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def uses_try(v):
            try:  # V-callee-try
                return v
            finally:
                pass

        @tack.kernel
        def kernel_with_untaken_call(a):
            for i in range(len(a)):
                if i < 0:
                    a[i] = uses_try(i)

        kernel_with_untaken_call(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="try", function="uses_try", kind="device function",
                     marker="V-callee-try", at="try")


# ------------------------------------- side effects outside the parallel loop


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_store_before_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_storing_before_loop(a):
            a[0] = 5  # V-store-before
            for i in range(len(a)):
                a[i] = 1

        kernel_storing_before_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_storing_before_loop", marker="V-store-before", at="a[0]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_store_after_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_storing_after_loop(a):
            for i in range(len(a)):
                a[i] = 1
            a[0] = 5  # V-store-after

        kernel_storing_after_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_storing_after_loop", marker="V-store-after", at="a[0]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_augmented_store_outside_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_incrementing_before_loop(a):
            a[0] += 1  # V-aug-store-before
            for i in range(len(a)):
                a[i] = 1

        kernel_incrementing_before_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_incrementing_before_loop", marker="V-aug-store-before", at="a[0]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_tuple_store_outside_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_tuple_storing_before_loop(a):
            x, a[1] = 1, 2  # V-tuple-store-before
            for i in range(len(a)):
                a[i] = x

        kernel_tuple_storing_before_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_tuple_storing_before_loop", marker="V-tuple-store-before", at="x, a[1]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_store_in_a_top_level_branch_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_storing_in_top_branch(a, flag):
            if flag > 0:
                a[0] = 5  # V-store-branch
            for i in range(len(a)):
                a[i] = 1

        kernel_storing_in_top_branch(i32(), 1)
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_storing_in_top_branch", marker="V-store-branch", at="a[0]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_store_in_a_top_level_while_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_storing_in_top_while(a):
            for i in range(len(a)):
                a[i] = 1
            n = 0
            while n < 2:
                a[n] = 5  # V-store-while
                n += 1

        kernel_storing_in_top_while(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_storing_in_top_while", marker="V-store-while", at="a[n]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_store_through_an_inlined_function_before_the_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def reset_first(a):
            a[0] = 0  # V-store-inlined

        @tack.kernel
        def kernel_resetting_before_loop(a):
            reset_first(a)
            for i in range(len(a)):
                a[i] = 1

        kernel_resetting_before_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop", function="reset_first",
                     kind="device function", marker="V-store-inlined", at="a[0]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_store_through_nested_inlined_functions_after_the_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def bump(a, k):
            a[k] += 1  # V-store-nested-inlined

        @tack.func
        def bump_first(a):
            bump(a, 0)
            return 1

        @tack.kernel
        def kernel_bumping_after_loop(a):
            for i in range(len(a)):
                a[i] = 1
            done = bump_first(a)

        kernel_bumping_after_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop", function="bump",
                     kind="device function", marker="V-store-nested-inlined", at="a[k]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_store_through_a_template_method_before_the_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.device_class
        class Resettable:
            def __init__(self, data):
                self.data = data

            @tack.func
            def reset(self):
                self.data[0] = 0  # V-store-method

        @tack.kernel
        def kernel_resetting_template(r, out):
            r.reset()
            for i in range(len(out)):
                out[i] = 1

        kernel_resetting_template(Resettable(i32()), i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop", function="reset",
                     kind="device function", marker="V-store-method", at="self.data[0]")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_item_assignment_through_setitem_after_the_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.device_class
        class Cells:
            def __init__(self, data):
                self.data = data

            @tack.func
            def __setitem__(self, i, v):
                self.data[i] = v  # V-store-setitem

        @tack.kernel
        def kernel_setting_item_after_loop(c, out):
            for i in range(len(out)):
                out[i] = 1
            c[0] = 5

        kernel_setting_item_after_loop(Cells(i32()), i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop", function="__setitem__",
                     kind="device function", marker="V-store-setitem", at="self.data[i]")


def test_loads_and_locals_outside_the_parallel_loop_are_accepted(backend):
    @tack.kernel
    def scale_by_first(a, out):
        first = a[0]
        n = len(out)
        if first > 2:
            first = 2
        while n > 100:
            n = n // 2
        for i in range(len(out)):
            out[i] = a[i] * first + n

    a = tack.array(np.array([3, 1, 4, 1], dtype=np.int32))
    out = i32()
    scale_by_first(a, out)
    np.testing.assert_array_equal(out.numpy(), [3 * 2 + 4, 1 * 2 + 4, 4 * 2 + 4, 1 * 2 + 4])


def test_continue_in_a_while_outside_the_parallel_loop_is_accepted(backend):
    # A while loop before or after the parallel loop is ordinary sequential
    # code that binds locals; its continue ends one of its iterations.
    @tack.kernel
    def count_odd_below_five(out):
        n = 0
        k = 0
        while k < 5:
            k += 1
            if k % 2 == 0:
                continue
            n += 1
        for i in range(len(out)):
            out[i] = n

    out = i32()
    count_odd_below_five(out)
    np.testing.assert_array_equal(out.numpy(), [3, 3, 3, 3])


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_print_outside_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_printing_before_loop(a):
            print(len(a))  # V-print-before
            for i in range(len(a)):
                a[i] = 1

        kernel_printing_before_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_printing_before_loop", marker="V-print-before", at="print")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_atomic_outside_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_atomic_before_loop(a):
            tack.atomic_add(a, 0, 1)  # V-atomic-before
            for i in range(len(a)):
                a[i] = 1

        kernel_atomic_before_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_atomic_before_loop", marker="V-atomic-before", at="tack.atomic_add")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_atomic_through_an_inlined_function_after_the_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def count_one(a):
            return tack.atomic_add(a, 0, 1)  # V-atomic-inlined

        @tack.kernel
        def kernel_atomic_after_loop(a):
            for i in range(len(a)):
                a[i] = 1
            old = count_one(a)

        kernel_atomic_after_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop", function="count_one",
                     kind="device function", marker="V-atomic-inlined", at="tack.atomic_add")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_barrier_outside_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_barrier_before_loop(a):
            tack.barrier()  # V-barrier-before
            for i in range(len(a)):
                a[i] = 1

        kernel_barrier_before_loop(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_barrier_before_loop", marker="V-barrier-before", at="tack.barrier")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_block_reduction_outside_the_parallel_loop_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_block_sum_after_loop(a, flag):
            for i in range(len(a)):
                a[i] = 1
            if flag > 0:
                s = tack.block_sum(flag)  # V-block-sum-after

        kernel_block_sum_after_loop(i32(), 1)
    check_diagnostic(error, tack.UnsupportedError, construct="outside the parallel loop",
                     function="kernel_block_sum_after_loop", marker="V-block-sum-after", at="tack.block_sum")


# --------------------------------------------------- host metadata, no-ops


def test_docstrings_and_pass_are_no_ops(backend):
    @tack.func
    def documented_double(v):
        """Doubles v."""
        pass
        return v * 2

    @tack.kernel
    def documented_kernel(out):
        """Writes 2 * i."""
        pass
        for i in range(len(out)):
            pass
            out[i] = documented_double(i)
            if i > 100:
                pass
            else:
                pass

    out = i32(6)
    documented_kernel(out)
    np.testing.assert_array_equal(out.numpy(), np.arange(6) * 2)


def test_parameter_annotations_and_return_annotation_are_host_metadata(backend):
    @tack.func
    def annotated_add(x: "anything at all", y: tack.Array) -> tack.f64:
        return x + y

    @tack.kernel
    def annotated_kernel(a: tack.Array, k: int, out: "not a type") -> None:
        for i in range(len(out)):
            out[i] = annotated_add(a[i], k)

    a = tack.array(np.arange(5, dtype=np.int32))
    out = i32(5)
    annotated_kernel(a, 3, out)
    np.testing.assert_array_equal(out.numpy(), np.arange(5) + 3)


def passthrough(fn):
    fn.was_decorated = True
    return fn


def test_other_decorators_are_host_metadata(backend):
    @tack.kernel
    @passthrough
    def decorated_kernel(out):
        for i in range(len(out)):
            out[i] = i + 1

    out = i32()
    decorated_kernel(out)
    np.testing.assert_array_equal(out.numpy(), [1, 2, 3, 4])


def test_positional_only_parameters_are_accepted(backend):
    @tack.kernel
    def positional_only(a, k, /, out):
        for i in range(len(out)):
            out[i] = a[i] + k

    out = i32()
    positional_only(tack.array(np.arange(4, dtype=np.int32)), 10, out)
    np.testing.assert_array_equal(out.numpy(), [10, 11, 12, 13])


# ------------------------------------------------------ diagnostic format


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_diagnostic_renders_file_line_column_source_caret_and_hint():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_for_rendering(a):
            for i in range(len(a)):
                if a[i] > 0:
                    break  # V-render
                a[i] = 1

        kernel_for_rendering(i32())
    e = check_diagnostic(error, tack.UnsupportedError, construct="break", function="kernel_for_rendering",
                         marker="V-render", at="break")
    lines = str(e).splitlines()
    line, text = marked_line("V-render")
    assert lines[0] == f"{FILE}:{line}:{text.index('break') + 1} in kernel 'kernel_for_rendering': {e.message}"
    assert "\n" not in e.message
    assert lines[-1] == f"hint: {e.hint}"
    assert len(lines) == 4


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_diagnostic_in_a_device_function_names_it():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.func
        def helper_with_lambda(v):
            g = lambda: v  # V-func-kind
            return v

        @tack.kernel
        def kernel_calling_helper_with_lambda(a):
            for i in range(len(a)):
                a[i] = helper_with_lambda(i)

        kernel_calling_helper_with_lambda(i32())
    e = check_diagnostic(error, tack.UnsupportedError, construct="lambda", function="helper_with_lambda",
                         kind="device function", marker="V-func-kind", at="lambda")
    assert "device function 'helper_with_lambda'" in str(e).splitlines()[0]


class _Holder:
    """Kernels defined at deeper indentation still report absolute columns."""

    @staticmethod
    def build():
        @tack.kernel
        def indented_kernel(a):
            for i in range(len(a)):
                a[i] = {i}  # V-indented

        return indented_kernel


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_columns_are_absolute_for_indented_definitions():
    with pytest.raises(tack.UnsupportedError) as error:
        _Holder.build()(i32())
    e = check_diagnostic(error, tack.UnsupportedError, construct="set", function="indented_kernel",
                         marker="V-indented", at="{i}")
    assert e.source_column < e.column


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_missing_cast_mixing_signed_and_u64_has_a_hint():
    with pytest.raises(tack.KernelTypeError) as error:

        @tack.kernel
        def kernel_mixing_i32_and_u64(a, b, out):
            for i in range(len(out)):
                out[i] = a[i] + b[i]  # V-u64-mix

        kernel_mixing_i32_and_u64(i32(), tack.zeros(4, dtype=tack.u64), tack.zeros(4, dtype=tack.i64))
    check_diagnostic(error, tack.KernelTypeError, construct="u64", function="kernel_mixing_i32_and_u64",
                     marker="V-u64-mix", at="a[i] +", hint="cast")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_vector_mask_used_as_a_condition_has_a_hint():
    with pytest.raises(tack.KernelTypeError) as error:

        @tack.kernel
        def kernel_branching_on_a_mask(a, out):
            for i in range(len(out)):
                if tack.vec2(a[i], 1.0) < tack.vec2(0.0, 2.0):  # V-mask-condition
                    out[i] = 1.0

        kernel_branching_on_a_mask(tack.zeros(4), tack.zeros(4))
    check_diagnostic(error, tack.KernelTypeError, construct="mask", function="kernel_branching_on_a_mask",
                     marker="V-mask-condition", at="tack.vec2(a[i]", hint="any(")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_binding_a_local_array_to_another_name_is_rejected():
    with pytest.raises(tack.UnsupportedError) as error:

        @tack.kernel
        def kernel_aliasing_scratch(out):
            for i in range(len(out)):
                tmp = tack.local_array(4, tack.i32)
                view = tmp  # V-local-array-alias
                out[i] = view[0]

        kernel_aliasing_scratch(i32())
    check_diagnostic(error, tack.UnsupportedError, construct="alias", function="kernel_aliasing_scratch",
                     marker="V-local-array-alias", at="view")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_errors_are_raised_again_on_every_call():
    @tack.kernel
    def kernel_failing_twice(a):
        for i in range(len(a)):
            a[i] = lambda: 1

    for _ in range(2):
        with pytest.raises(tack.UnsupportedError, match="lambda"):
            kernel_failing_twice(i32())


# ------------------------------------------- values of calls with no value


@tack.func
def returns_nothing(x):
    x = x + 1.0


@tack.func
def returns_on_one_path(x):
    if x > 0.0:
        return x


@tack.func
def returns_on_every_path(x):
    if x > 0.0:
        return x
    else:
        return -x


def f32s(n=4):
    return tack.zeros(n, dtype=tack.f32)


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_storing_the_value_of_a_function_that_returns_nothing_is_rejected():
    with pytest.raises(tack.KernelTypeError) as error:

        @tack.kernel
        def kernel_storing_nothing(a):
            for i in range(len(a)):
                a[i] = returns_nothing(a[i])  # V-store-nothing

        kernel_storing_nothing(f32s())
    check_diagnostic(error, tack.KernelTypeError, construct="returns nothing", function="kernel_storing_nothing",
                     marker="V-store-nothing", at="returns_nothing(")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_binding_the_value_of_a_function_that_returns_nothing_is_rejected():
    with pytest.raises(tack.KernelTypeError) as error:

        @tack.kernel
        def kernel_binding_nothing(a):
            for i in range(len(a)):
                y = returns_nothing(a[i])  # V-bind-nothing
                a[i] = 1.0

        kernel_binding_nothing(f32s())
    check_diagnostic(error, tack.KernelTypeError, construct="returns nothing", function="kernel_binding_nothing",
                     marker="V-bind-nothing", at="returns_nothing(")


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_returning_the_value_of_a_function_that_returns_nothing_is_rejected():
    @tack.func
    def forwards_nothing(x):
        return returns_nothing(x)  # V-forward-nothing

    with pytest.raises(tack.KernelTypeError) as error:

        @tack.kernel
        def kernel_forwarding_nothing(a):
            for i in range(len(a)):
                a[i] = forwards_nothing(a[i])

        kernel_forwarding_nothing(f32s())
    check_diagnostic(error, tack.KernelTypeError, construct="returns nothing", function="forwards_nothing",
                     kind="device function", marker="V-forward-nothing", at="returns_nothing(")


@pytest.mark.parametrize("use", ["store", "local", "tuple"])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_using_the_value_of_a_function_that_returns_on_some_paths_only_is_rejected(use):
    with pytest.raises(tack.KernelTypeError) as error:
        if use == "store":

            @tack.kernel
            def kernel_some_paths(a):
                for i in range(len(a)):
                    a[i] = returns_on_one_path(a[i])  # V-some-paths-store

            marker = "V-some-paths-store"
        elif use == "local":

            @tack.kernel
            def kernel_some_paths(a):
                for i in range(len(a)):
                    y = returns_on_one_path(a[i])  # V-some-paths-local
                    a[i] = y

            marker = "V-some-paths-local"
        else:

            @tack.kernel
            def kernel_some_paths(a):
                for i in range(len(a)):
                    y, z = returns_on_one_path(a[i]), 1.0  # V-some-paths-tuple
                    a[i] = y + z

            marker = "V-some-paths-tuple"
        kernel_some_paths(f32s())
    e = check_diagnostic(error, tack.KernelTypeError, construct="missing return", function="kernel_some_paths",
                         marker=marker, at="returns_on_one_path(", hint="every path")
    assert "returns_on_one_path" in e.message and "some paths" in e.message


@tack.kernel
def kernel_calling_for_effect(a, out):
    for i in range(len(a)):
        returns_on_one_path(a[i])
        out[i] = returns_on_every_path(a[i])


def test_functions_returning_on_some_paths_run_as_statements_and_every_path_returns_count(backend):
    xs = np.array([-2.0, 3.0, 0.0, 5.5], dtype=np.float32)
    out = f32s()
    kernel_calling_for_effect(tack.array(xs), out)
    np.testing.assert_array_equal(out.numpy(), np.abs(xs))


# ------------------------------------------------ vector method arities


def imported(path):
    """The module written at `path`: cases whose kernel text varies are
    written to files, since kernels compile from their source."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "call",
    ["v.normalized(1e-3)", "v.norm_sqr(1.0)", "v.sum(1.0)", "v.min(0.0)", "v.max(0.0)", "v.norm(1.0, 2.0)",
     "v.dot()", "v.dot(v, v)", "v.cross()", "v.outer_product()"],
)
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_vector_methods_check_their_arity(tmp_path, call):
    # The kernel's text carries the call, so each case is written to a file.
    path = tmp_path / "arity_case.py"
    path.write_text(
        "import tack\n"
        "@tack.kernel\n"
        "def kernel_with_method(a):\n"
        "    for i in range(len(a)):\n"
        "        v = tack.vec3(a[i], 1.0, 2.0)\n"
        f"        r = {call}\n"
        "        a[i] = 1.0\n"
    )
    with pytest.raises(tack.KernelTypeError) as e:
        imported(path).kernel_with_method(f32s())
    name = call.split(".")[1].split("(")[0]
    assert f"method '{name}'" in e.value.message and "given" in e.value.message
    assert (e.value.line, e.value.column) == (6, 13)


@tack.kernel
def kernel_norm_with_eps(a, out):
    for i in range(len(a)):
        v = tack.vec2(a[i], 0.0)
        out[i] = v.norm(9.0)


def test_norm_takes_one_epsilon(backend):
    xs = np.array([0.0, 4.0], dtype=np.float32)
    out = f32s(2)
    kernel_norm_with_eps(tack.array(xs), out)
    np.testing.assert_array_equal(out.numpy(), np.sqrt(xs * xs + np.float32(9.0)))


# ------------------------------------------------ local array sizes


@pytest.mark.parametrize("shape", ["(1048576, 1048576, 1048576, 16)", "(1048576, 1048576, 1048576, 1048576)",
                                   "(65536, 65536)", "(16385,)"])
@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_local_arrays_past_64_kib_are_rejected_however_large(tmp_path, shape):
    # A byte count that wraps 64 bits must not slip under the limit.
    path = tmp_path / "local_case.py"
    path.write_text(
        "import tack\n"
        "@tack.kernel\n"
        "def kernel_with_scratch(a):\n"
        "    for i in range(len(a)):\n"
        f"        tmp = tack.local_array({shape}, tack.f32)\n"
        "        a[i] = 1.0\n"
    )
    with pytest.raises(tack.KernelValueError) as e:
        imported(path).kernel_with_scratch(f32s())
    assert "64 KiB" in e.value.message and e.value.line == 5


@pytest.mark.cpu_only(FRONTEND_ONLY)
def test_local_arrays_past_a_mib_in_all_are_rejected_at_the_one_that_crosses(tmp_path):
    # Each array within 64 KiB, sixteen of them 1 MiB (allowed), the
    # seventeenth past it: local arrays live on the worker's stack, which
    # more would overflow (it crashed the process before).
    body = "".join(f"        t{k} = tack.local_array(16384, tack.f32)\n        t{k}[0] = 1.0\n" for k in range(17))
    path = tmp_path / "scratch_case.py"
    path.write_text("import tack\n@tack.kernel\ndef kernel_with_scratch(a):\n    for i in range(len(a)):\n" + body +
                    "        a[i] = 1.0\n")
    with pytest.raises(tack.KernelValueError) as e:
        imported(path).kernel_with_scratch(f32s())
    assert e.value.line == 5 + 2 * 16, e.value.message
    assert str(17 * 65536) in e.value.message and "1 MiB" in e.value.message, e.value.message
    assert "global array" in str(e.value)
