def loops(out, n, m):
    total = 0
    for i in range(n):
        j = 0
        while j < m:
            if (i + j) % 3 == 0:
                j += 1
                continue
            elif i > j:
                break
            else:
                total += i * j
            j += 1
        else:
            total -= 1
    out[0] = total
    return total
