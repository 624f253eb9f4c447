"""Signed receipts, the audit transcript, the standalone verifier, docs/fairness.md vectors."""
