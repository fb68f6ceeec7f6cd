def ops(a, b, c):
    x = -a ** -b ** c + ~a * b @ c / a // b % c - (a << 2 >> 1)
    y = a & b | c ^ a
    z = not a < b <= c != a == b > c >= a and b is not None or c in a and b not in c
    w = a if b else c if a else b
    v = a[1:2, ::3, b:], a[...], a[:, None], a.b.c(1, *b, k=2, **c)
    x **= 2; x //= 3; x @= y; x >>= 1; x <<= 1; x &= 1; x |= 2; x ^= 3; x %= 4
    a, (b, c), [d, *e] = 1, (2, 3), [4, 5, 6]
    p = q = r = 2**-1
