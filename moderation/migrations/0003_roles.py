"""The staff roles as groups with Django's own model permissions (docs/moderation.md,
"Roles"): moderators work reports, chat and sanctions; operators run matches and tournaments.
Neither reads the other's pages unless given the right. Permissions are made here if the
first ``migrate`` has not made them yet (they are made after every migration)."""

from django.db import migrations

MODERATORS = {
    ("moderation", "report"): ("view", "change"),
    ("moderation", "reportfiling"): ("view",),
    ("moderation", "sanction"): ("view", "add", "change", "close_account"),
    ("moderation", "staffnote"): ("view", "add"),
    ("moderation", "moderationlogentry"): ("view",),
    ("social", "chatmessage"): ("view", "change"),
    ("accounts", "user"): ("view",),
}
OPERATORS = {
    ("games", "match"): ("view", "change"),
    ("games", "seatoffer"): ("view",),
    ("games", "seattenure"): ("view",),
    ("tournaments", "tournament"): ("view", "change"),
    ("tournaments", "entry"): ("view",),
    ("tournaments", "tournamentmatch"): ("view",),
    ("tournaments", "tournamentevent"): ("view",),
    ("moderation", "moderationlogentry"): ("view",),
    ("accounts", "user"): ("view",),
}
GROUPS = {"moderators": MODERATORS, "operators": OPERATORS}


def _codename(action: str, model: str) -> str:
    return action if action == "close_account" else f"{action}_{model}"


def groups_create(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    ContentType = apps.get_model("contenttypes", "ContentType")
    for name, grants in GROUPS.items():
        group, _ = Group.objects.get_or_create(name=name)
        for (app_label, model), actions in grants.items():
            content_type, _ = ContentType.objects.get_or_create(app_label=app_label, model=model)
            for action in actions:
                codename = _codename(action, model)
                permission, _ = Permission.objects.get_or_create(
                    content_type=content_type,
                    codename=codename,
                    defaults={"name": f"Can {codename.replace('_', ' ')}"},
                )
                group.permissions.add(permission)


def groups_delete(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=list(GROUPS)).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("moderation", "0002_reports_and_sanctions"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("games", "0016_seat_unrated"),
        ("social", "0003_challenge_allow_bots"),
        ("tournaments", "0001_initial"),
    ]

    operations = [migrations.RunPython(groups_create, groups_delete)]
