sed -i 's|return values.reduce((a, b) => a + b, 0) / values.length;|return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;|' src/math.js
sed -i 's/Math.min(...values)/Math.max(...values)/' src/math.js
sed -i 's/1.3.0/1.3.1/' src/version.js
sed -i 's/^## 1.3.0$/## 1.3.1\n- average() of an empty list is 0.\n- largest() returns the largest number.\n\n## 1.3.0/' CHANGELOG.md
