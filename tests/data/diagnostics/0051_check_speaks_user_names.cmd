check
0051_check.cases.json
