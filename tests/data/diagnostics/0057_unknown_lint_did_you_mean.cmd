infer
--allow
redefined-tensors
0024_defined_twice_warning.ein
