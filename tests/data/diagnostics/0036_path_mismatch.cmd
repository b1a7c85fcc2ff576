path
ij,jk->ik
2,3
4,5
