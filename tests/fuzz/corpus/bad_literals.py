def bad(a):
    x = 012
    y = "unterminated
