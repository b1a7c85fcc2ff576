infer
--deny
unsized-label
0025_result_label_in_no_operand.ein
