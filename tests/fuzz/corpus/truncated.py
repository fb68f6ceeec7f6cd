def errors(a):
    x = (1,
    return x [
