"""What every app of the project shares and no app owns: domain errors with stable codes,
their problem+json rendering, and the request throttles."""
