infer
--explain
--deny-warnings
0024_defined_twice_warning.ein
