run
ij;jk=>ik
[[1,2]]
[1,2]
