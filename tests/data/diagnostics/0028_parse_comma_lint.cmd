parse
--einsum
ij,jk=>ik
--operands
2
