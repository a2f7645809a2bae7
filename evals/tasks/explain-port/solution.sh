# Nothing to change: the answer is the solution (answer.md).
