sed -i 's/i < to; i++/i <= to; i++/' src/range.js
