"""Acceptance case for @tack.device_class, which is not built yet.

It moves into tests/python/test_names.py (it uses that file's `package`
fixture, `run` and `VALUES`) when templates land; pytest does not collect
this folder.
"""


def test_pending_device_class_method_keeps_its_defining_bindings(package):
    # Template methods resolve their calls in the module that defines the
    # class, not in the kernel's module, after self resolution.
    package.write(
        "shapes",
        """
        import tack

        @tack.func
        def scale(x):
            return x * 2

        @tack.device_class
        class Doubler:
            def __init__(self, data):
                self.data = data

            @tack.func
            def at(self, i):
                return scale(self.data[i])
        """,
    )
    package.write(
        "uses_shapes",
        """
        import tack
        from PKG.shapes import Doubler

        @tack.func
        def scale(x):
            return x * 100

        @tack.kernel
        def doubled(a, out):
            d = Doubler(a)
            for i in range(len(out)):
                out[i] = d.at(i) + scale(0)
        """,
    )
    uses = package.load("uses_shapes")
    assert run(uses.doubled, VALUES) == [2 * v for v in VALUES]
