def ñandú(ä, β=1, *größe, 变量, **κ):
    résultat = ä + β  # ünïcödé
    return résultat, "日本語"
