@tack.kernel
def saxpy(a: float, x: tack.Array, y: tack.Array, n: int):
    """y = a * x + y"""
    for i in range(n):
        y[i] = a * x[i] + y[i]
