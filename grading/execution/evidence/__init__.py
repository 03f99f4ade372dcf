"""What the judge shows beside a failed verdict: evidence computed from the student's own calls
(runs in the judge's sandbox: stdlib, NumPy and the judge's own modules only)."""
