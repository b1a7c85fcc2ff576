parse
--numpy
ij;jk->ik
