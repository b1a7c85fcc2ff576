path
ij,jk,kl->il
2,2
2,5
5,2
--optimize
optimal
