infer
0052_malformed.cases.json
