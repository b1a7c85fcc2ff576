infer
--explain
0027_case_file.case.json
