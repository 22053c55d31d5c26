# two inputs, && || and parentheses
var a(0,1){set trapez L(0,0,0,1);set trapez H(1,1,1,0);}
var b(0,1){set trapez L(0,0,0,1);set trapez H(1,1,1,0);}
var v(-1,2){set triangle N(0,1,1);set triangle T(1,1,1);}
if ((a == H && b == H) || a == L) { v = T; } // both high
if (a == L && b == L) { v = N; }
