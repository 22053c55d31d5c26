var distance(0, 2) {
  set trapez LOW ( 0, 0.5, 0, 0.5 );
  set trapez HIGH ( 1, 2, 0.5, 0 ); }
var violation(-1, 2) {
  set triangle NONE ( 0, 1, 1 );
  set triangle TOTAL ( 1, 1, 1 ); }
if ( distance == LOW ) { violation = NONE; }
if ( distance == HIGH ) { violation = TOTAL; }
