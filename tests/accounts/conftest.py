from tests.notify.conftest import jobs

__all__ = ["jobs"]
