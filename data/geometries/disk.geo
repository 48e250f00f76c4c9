// A disk of the given radius centred at the origin: the circular cavity of the curved-element
// convergence tests (TM modes with Bessel J_m). Physical groups: "wall" (the circle), "domain".
// Parameters (rtdg mesh disk.geo -D name=value): radius, h (mesh size), order (the geometry
// order of the elements: 1 straight-sided, 2 to 4 curved along the circle).
DefineConstant[
  radius = {1.0, Name "Parameters/radius"},
  h = {0.5, Name "Parameters/h"},
  order = {1, Name "Parameters/order"}
];

Point(1) = {0, 0, 0, h};
Point(2) = {radius, 0, 0, h};
Point(3) = {0, radius, 0, h};
Point(4) = {-radius, 0, 0, h};
Point(5) = {0, -radius, 0, h};
Circle(1) = {2, 1, 3};
Circle(2) = {3, 1, 4};
Circle(3) = {4, 1, 5};
Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};

Physical Curve("wall") = {1, 2, 3, 4};
Physical Surface("domain") = {1};
Mesh.ElementOrder = order;
