"""The console's ModelAdmins, one module per subject; console/admin.py registers them."""
