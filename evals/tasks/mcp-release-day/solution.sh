printf '\nRelease day: Tuesday\n' >> RELEASING.md
