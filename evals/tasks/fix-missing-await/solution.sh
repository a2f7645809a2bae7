sed -i 's/const current = store.get(key);/const current = await store.get(key);/' src/store.js
