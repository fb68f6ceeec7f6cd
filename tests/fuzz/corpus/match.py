def m(command, match, case):
    match = case(match)
    match command.split():
        case [action]:
            pass
        case [action, obj] if obj:
            return obj
        case Point(x=0, y=0) | {"k": _, **rest}:
            pass
        case _:
            match(1)
