infer
0077_case_file.case.json
