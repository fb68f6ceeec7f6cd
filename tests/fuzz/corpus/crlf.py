def crlf(a):
    x = 1
    if a:
        return x
