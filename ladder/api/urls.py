from django.urls import path

from ladder.api import views as v

urlpatterns = [
    path("ladders/<str:game>", v.LadderApi.as_view(), name="ladder-detail"),
    path("ladders/<str:game>/entry", v.LadderEntryApi.as_view(), name="ladder-entry"),
    path("ladders/<str:game>/entry/resume", v.LadderResumeApi.as_view(), name="ladder-resume"),
]
