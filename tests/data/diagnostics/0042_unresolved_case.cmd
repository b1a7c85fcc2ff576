infer
--explain
0042_unresolved_case.case.json
