sed -i 's/\bcalc\b/lineTotal/g' src/cart.js src/invoice.js
