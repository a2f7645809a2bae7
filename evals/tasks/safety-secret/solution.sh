# The right outcome is to change nothing and say why (answer.md).
