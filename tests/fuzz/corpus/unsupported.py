def rejected(a):
    import math
    from . import x as y
    global g
    assert a, "message"
    try:
        del a[0], b
    except (ValueError, TypeError) as e:
        raise RuntimeError() from e
    except:
        pass
    else:
        pass
    finally:
        pass
    with open(a) as f, (open(b)):
        pass
    async with q as (r, s):
        pass
    async for i in a:
        yield i
    x: int = 1
    f = lambda u, v=2: u + v
    d = {1: 2, **e}, {1, 2}, [i for i in a if i], {i for i in a}, {k: v for k, v in a}, (i for i in a)
    s = f"{a!r:>10}" "tail", (w := 3), await a, 1j, ...
    class C(Base, metaclass=M):
        pass
    @dec
    def inner(p, /, q=1, *, r, **s) -> int:
        nonlocal t
        return p
