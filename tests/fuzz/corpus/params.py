@tack.func(inline=True)
@other
async def params(a, b: int = 1, /, c=2, *args: float, d, e=3, **kw) -> tack.f32:
    return await a
