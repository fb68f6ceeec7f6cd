def layout(a,
           b):  # comment
    x = (1 +
         2)  # implicit joining
    y = 1 + \
        2
    if x: y = 3; z = 4
	
    # a comment line at another indentation
    while y: y -= 1
    return [
        x,
        y,
    ]
