parse
--einsum
ij;jk=>ik
