infer
0078_case_file.case.json
