grep -rn "TODO:" src | sort | sed -E 's|^([^:]+):[0-9]+:.*TODO: (.*)$|- \1: \2|' > TODOS.md
