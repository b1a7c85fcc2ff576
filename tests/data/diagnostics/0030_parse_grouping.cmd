parse
--einsum
(h w) c => h w c
