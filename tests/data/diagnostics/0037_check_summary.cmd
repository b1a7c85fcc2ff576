check
0037_check.cases.json
