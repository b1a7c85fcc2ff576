infer
--allow
redefined-tensor
0024_defined_twice_warning.ein
