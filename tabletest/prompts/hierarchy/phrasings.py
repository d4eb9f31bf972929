"""Several wordings of each question template, all meaning the same, so a model learns the relation and not the
sentence (the study's point is that models should not care how a question is put).

`PHRASINGS[template]` lists a template's phrasings, the first its plainest (a template of the template table,
`template_table`, keeps its phrasings in its row); each is a format string over the
same words (`x`, `y`: the objects' names, `rel`: the relation's words, ...). A question records its `template`
and the number of the `phrasing` it was asked in, drawn from the seed and its id (`Asker`), so a user can hold
phrasings out.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from tabletest.prompts.hierarchy.naming import OWN, viewer_phrasings
from tabletest.prompts.hierarchy.template_table import TEMPLATES

CAPTION = (
    'Is this caption true of the image: "{caption}"',
    'Does this caption describe the image correctly: "{caption}"',
    'Is the following caption a true description of the image: "{caption}"',
    'Does the image match this caption: "{caption}"',
    'Here is a caption: "{caption}" Is it true of the image?',
)
# the skill each axis of the relation table (`truth.relation_table`) is captioned under: template `caption-<skill>`
CAPTION_SKILL = {"lateral": "position", "depth": "position", "table": "position", "vertical": "support", "containment": "support",
                 "contact": "support", "proximity": "distance", "orientation": "orientation"}  # fmt: skip

PHRASINGS: dict[str, tuple[str, ...]] = {row.name: row.phrasings for row in TEMPLATES} | {
    # counts take in every object, on the table or on another: the words say "there", not "on the table"
    "count-all": (
        "How many objects are there?",
        "How many objects are there in all?",
        "Count the objects. How many are there?",
        "What is the number of objects in the scene?",
        "How many objects does the scene hold?",
    ),
    "count-kind": (
        "How many {xs} are there?",
        "How many {xs} are there in all?",
        "Count the {xs}. How many are there?",
        "What is the number of {xs} in the scene?",
        "How many {xs} does the scene hold?",
    ),
    "count-position": viewer_phrasings("how many objects are {rel} the {x}?"),
    "count-kind-position": viewer_phrasings("how many {ys} are {rel} the {x}?"),
    "count-own-position": tuple(f"{own}, how many objects are {{rel}} it?" for own in OWN),
    "count-distance": (
        "How many objects are {rel} the viewer than the {x}?",
        "How many objects are {rel} the viewer's position than the {x}?",
        "What is the number of objects {rel} the viewer than the {x}?",
        "How many objects are there {rel} the viewer than the {x}?",
        "Counting every object but the {x}, how many are {rel} the viewer than it?",
    ),
    "occlusion-yes/no": (
        "Is the {x} partly hidden by another object?",
        "Is part of the {x} hidden behind another object?",
        "Is the {x} partly covered by another object in the picture?",
        "Does another object hide part of the {x}?",
        "Is some of the {x} out of sight behind another object?",
    ),
    "occlusion-which": (
        "Which object hides part of the {x}?",
        "What object is covering part of the {x}?",
        "Which object blocks part of the {x} from view?",
        "Part of the {x} is hidden: which object hides it?",
        "Which object stands in front of part of the {x}, hiding it?",
    ),
    "support-yes/no": (
        "Is the {x} {rel} the {y}?",
        "Looking at the table, is the {x} {rel} the {y}?",
        "Would you say the {x} is {rel} the {y}?",
        "Is it true that the {x} is {rel} the {y}?",
        "In the picture, is the {x} {rel} the {y}?",
    ),
    "support-choice": (
        "Which is {rel} the {z}, the {x} or the {y}?",
        "Looking at the table, which is {rel} the {z}: the {x} or the {y}?",
        "Of the {x} and the {y}, which is {rel} the {z}?",
        "Which object is {rel} the {z}, the {x} or the {y}?",
        "In the picture, which is {rel} the {z}, the {x} or the {y}?",
    ),
    "touching-yes/no": (
        "Is the {x} touching the {y}?",
        "Is the {x} in contact with the {y}?",
        "Are the {x} and the {y} touching?",
        "Is there contact between the {x} and the {y}?",
        "Do the {x} and the {y} touch each other?",
    ),
    # lengths: the question names no unit, which would tell how long it is; the instruction asks for one
    "metric-viewer-distance": (
        "How far is the {x} from the viewer?",
        "What is the distance from the viewer to the {x}?",
        "How far away from the viewer's position is the {x}?",
        "Measured from the viewer, how far off is the {x}?",
        "How much distance is there between the viewer and the {x}?",
    ),
    "metric-height": (
        "How tall is the {x}?",
        "What is the height of the {x}?",
        "How high is the {x}, from its base to its top?",
        "Measured from bottom to top, how tall is the {x}?",
        "What height does the {x} have?",
    ),
    "metric-length": (
        "How long is the {x}, along its longest side on the table?",
        "What is the length of the {x} (its longest horizontal side)?",
        "Along its longer side, how long is the {x}?",
        "How long is the {x} at its longest, measured flat along the table?",
        "What is the {x}'s longest horizontal dimension?",
    ),
    "metric-width": (
        "How wide is the {x}, across its shorter side on the table?",
        "What is the width of the {x} (its shorter horizontal side)?",
        "Across its narrower side, how wide is the {x}?",
        "How wide is the {x}, measured flat along the table across its short side?",
        "What is the {x}'s shorter horizontal dimension?",
    ),
    "metric-above-table": (
        "How high above the table top is the bottom of the {x}?",
        "How far above the table does the {x}'s lowest point sit?",
        "What is the height of the {x}'s base above the table top?",
        "How high off the table is the {x} raised?",
        "Measured from the table top, how high is the bottom of the {x}?",
    ),
    "metric-distance-centres": (
        "How far apart are the centres of the {x} and the {y}?",
        "What is the distance between the centre of the {x} and the centre of the {y}?",
        "Measured centre to centre, how far is the {x} from the {y}?",
        "How far is the middle of the {x} from the middle of the {y}?",
        "What is the centre-to-centre distance between the {x} and the {y}?",
    ),
    "metric-gap": (
        "How far apart are the {x} and the {y} at their closest points?",
        "What is the gap between the {x} and the {y}, where they come closest?",
        "How much space is there between the {x} and the {y} at their nearest?",
        "At their nearest points, how far is the {x} from the {y}?",
        "What is the shortest distance between the surfaces of the {x} and the {y}?",
    ),
    # a slide along the table straight towards the other's middle, until the two meet (`truth.contact.slides`)
    "metric-move-to-touch": (
        "How far would the {x} have to slide along the table, straight towards the {y}, to touch it?",
        "How far must the {x} travel, straight towards the {y} along the table, before they touch?",
        "If you slid the {x} straight towards the {y}, how far would it go before touching it?",
        "Slid along the table straight towards the {y}, what distance would the {x} move before the two touch?",
        "Pushed straight towards the {y} along the table, how far would the {x} move before it touches the {y}?",
    ),
    # a direction on the table: a clock face lying on it, 12 straight away from the viewer, 3 to the right
    "direction-clock": (
        "Imagine a clock face lying on the table with 12 pointing straight away from the viewer. Seen from the {x}, at what hour is the {y}?",
        "With 12 o'clock straight ahead of the viewer and 3 o'clock to the viewer's right, at what clock position is the {y} from the {x}?",
        "Using clock directions on the table (12 away from the viewer, 3 to the viewer's right), where is the {y} as seen from the {x}?",
        "Taking 12 o'clock as the direction the viewer looks along the table, at what o'clock is the {y} from the {x}?",
        "If the {x} were the centre of a clock face with 12 facing away from the viewer, which hour would point to the {y}?",
    ),
    # which way an object faces as the viewer sees it (`truth.facing`): eight words, or a clock hour on the table
    "facing-direction": (
        "As the viewer sees it, which way is the {x} facing: towards the viewer, away from the viewer, to the left, to the right, or between two of these (such as towards and left)?",
        "Which way does the {x} face, as seen from the viewer: towards the viewer, away, left, right, or diagonally between two of them?",
        "From the viewer's point of view, in which direction is the {x} facing: towards, away, left, right, or diagonally between two of these?",
        "Seen from the viewer's position, is the {x} facing towards the viewer, away from the viewer, to the left, to the right, or diagonally between two of these?",
        "Which direction is the {x} turned to face, as the viewer sees it: towards the viewer, away, left, right, or in between two of these?",
    ),
    "facing-clock": (
        "Imagine a clock face lying on the table under the {x}, with 12 pointing straight away from the viewer. At what hour does the {x} face?",
        "With 12 o'clock straight away from the viewer and 3 o'clock to the viewer's right, at what clock position is the {x} facing?",
        "Using clock directions on the table (12 away from the viewer, 3 to the viewer's right), which hour is the {x} facing?",
        "Taking 12 o'clock as straight away from the viewer along the table, at what o'clock is the {x} turned to face?",
        "If a clock face lay on the table under the {x} with 12 pointing away from the viewer, which hour would the {x} face?",
    ),
    # {rel}: "facing" or "facing away from" another object; "the same way" or "opposite ways" for two objects
    "facing-object-yes/no": (
        "Is the {x} {rel} the {y}?",
        "Looking at the table, is the {x} {rel} the {y}?",
        "Would you say the {x} is {rel} the {y}?",
        "Is the {x} turned so that it is {rel} the {y}?",
        "Judging by which way it faces, is the {x} {rel} the {y}?",
    ),
    "facing-same-yes/no": (
        "Are the {x} and the {y} facing {rel}?",
        "Do the {x} and the {y} face {rel}?",
        "Looking at the table, are the {x} and the {y} turned to face {rel}?",
        "Would you say the {x} and the {y} are facing {rel}?",
        "Judging by which way each faces, do the {x} and the {y} face {rel}?",
    ),
    # how the viewpoint moved between two photos of one table ("the camera" could be an object on it); {a}, {b}:
    # the photo it moved from and to, "first" or "second"; the left and right of one facing the table from {a}
    "turn-way": (
        "Between the {a} photo and the {b}, the viewpoint moved around the table. Facing the table as in the {a} photo, did it move to the left or to the right?",
        "The {a} photo was taken, then the photographer walked around the table and took the {b}. Did they walk to their left or to their right?",
        "Going from the {a} photo to the {b}, which way did the viewpoint go around the table: to the left or to the right, as one faces the table in the {a}?",
        "Seen from where the {a} photo was taken, facing the table, did the photographer move to the left or to the right to take the {b} photo?",
        "Did the viewpoint circle the table towards the left or towards the right between the {a} photo and the {b}, as one faces the table in the {a}?",
    ),
    "turn-deg": (
        "About how many degrees did the viewpoint turn around the table between the first and the second photo?",
        "Between the first photo and the second, the photographer walked around the table. Through about how many degrees?",
        "Roughly how large is the angle, around the table, between where the first photo and the second were taken?",
        "By about how many degrees did the view turn around the table from the first photo to the second?",
        "Going from the first photo to the second, about how far around the table did the viewpoint move, in degrees?",
    ),
    # a rotate partner: how its object {x} turned where it stands, from the {a} image to the {b} ("first", "second")
    "object-turn-way": (
        "Between the {a} image and the {b}, the {x} was turned where it stands. Seen from above, did it turn clockwise or anticlockwise?",
        "The {x} is turned round in place from the {a} image to the {b}. Looking down on the table from above, was that turn clockwise or anticlockwise?",
        "Going from the {a} image to the {b}, which way did the {x} turn about its vertical axis, seen from above: clockwise or anticlockwise?",
        "From the {a} image to the {b}, the {x} rotated on the spot. Viewed from above the table, did it rotate clockwise or anticlockwise (counterclockwise)?",
        "Imagine looking down on the table from above. Did the {x} turn clockwise or anticlockwise between the {a} image and the {b}?",
    ),
    "object-turn-deg": (
        "About how many degrees did the {x} turn where it stands between the first image and the second?",
        "Between the first image and the second, the {x} was turned in place. Through about how many degrees?",
        "Roughly how large is the angle the {x} turned through, about its vertical axis, from the first image to the second?",
        "By about how many degrees was the {x} rotated on the spot between the first and the second image?",
        "Going from the first image to the second, about how far did the {x} turn round, in degrees?",
    ),
    "move-distance": (  # {way}: "closer to" or "farther from" the point the viewpoint looks at
        "Between the first photo and the second, did the viewpoint move {way} the objects it looks at?",
        "Was the second photo taken from a point {way} the objects than the first?",
        "Did the photographer move {way} the objects on the table between taking the first photo and the second?",
        "Compared with where the first photo was taken, is the spot the second was taken from {way} the objects?",
        "Going from the first photo to the second, did the viewpoint get {way} the group of objects it is aimed at?",
    ),
    "now-left": (
        "In the first photo the {x} is to the left of the {y}. In the second photo, which is to the left of the other, the {x} or the {y}?",
        "The first photo shows the {x} to the left of the {y}. Seen from where the second photo was taken, which of the two is on the left, the {x} or the {y}?",
        "The {x} is left of the {y} in the first photo. After the viewpoint moved, which is now on the left in the second photo: the {x} or the {y}?",
        "In the first photo the {x} is on the left of the {y}. Which of them is on the left of the other in the second photo, the {x} or the {y}?",
        "From the first viewpoint the {x} is to the left of the {y}. From the second, which is to the left of the other, the {x} or the {y}?",
    ),
    # a sequence of frames, shown in order ({n}: how many); "the viewpoint" as for two photos
    "seq-enter-first": (
        "These {n} images are frames of one sequence, in order. Which came into view first, the {x} or the {y}?",
        "The {n} images were taken one after another, in this order. Which of the two appeared first, the {x} or the {y}?",
        "Looking through the {n} frames from first to last, which comes into view sooner: the {x} or the {y}?",
        "These are {n} consecutive frames. Of the {x} and the {y}, which was the first to come into sight?",
        "In this sequence of {n} frames, shown in order, which came into view earlier, the {x} or the {y}?",
    ),
    "seq-leave-first": (
        "These {n} images are frames of one sequence, in order. Which went out of view first, the {x} or the {y}?",
        "The {n} images were taken one after another, in this order. Which of the two disappeared from view first, the {x} or the {y}?",
        "Looking through the {n} frames from first to last, which goes out of sight sooner: the {x} or the {y}?",
        "These are {n} consecutive frames. Of the {x} and the {y}, which was the first to go out of sight?",
        "In this sequence of {n} frames, shown in order, which went out of view earlier, the {x} or the {y}?",
    ),
    "seq-moved-which": (
        "These {n} images are frames of one sequence, in order. One object moved between the first frame and the last. Which one?",
        "The {n} images were taken one after another, in this order, and one object was moved in between. Which object moved?",
        "Between the first of these {n} frames and the last, one of the objects changed its place on the table. Which one?",
        "These are {n} consecutive frames. Which object moves over the course of them?",
        "In this sequence of {n} frames, shown in order, one object slides along the table. Which object is it?",
    ),
    "seq-moved-way": (
        "These {n} images are frames of one sequence, in order. The {x} slid along the table. As the viewer sees it, which way did it go: left, right, towards the viewer or away from the viewer?",
        "Over these {n} consecutive frames the {x} moves along the table. Seen from the viewer's position, did it move left, right, towards the viewer or away from the viewer?",
        "The {n} images were taken one after another, in this order, while the {x} was slid across the table. Which way did it slide, as the viewer sees it: left, right, towards the viewer or away from the viewer?",
        "From the first of these {n} frames to the last, the {x} changes its place on the table. In which direction did it move from the viewer's point of view: left, right, towards the viewer or away from the viewer?",
        "In this sequence of {n} frames, shown in order, the {x} slides. From where the viewer stands, which way: left, right, towards the viewer or away from the viewer?",
    ),
    "seq-moved-distance": (
        "These {n} images are frames of one sequence, in order. About how far did the {x} slide along the table between the first frame and the last?",
        "Over these {n} consecutive frames the {x} moves along the table. Roughly what distance does it cover from the first frame to the last?",
        "The {n} images were taken one after another, in this order, while the {x} was slid across the table. About how far did it move in all?",
        "From the first of these {n} frames to the last, how far did the {x} travel along the table, approximately?",
        "In this sequence of {n} frames, shown in order, the {x} slides. About how long is its path from the first frame to the last?",
    ),
    "seq-orbit-way": (
        "These {n} images are frames of one sequence, in order, while the viewpoint moved around the table. Facing the table as in the first frame, did it move to the left or to the right?",
        "The {n} images were taken one after another as the photographer walked around the table. Did they walk to their left or to their right, as they faced the table in the first frame?",
        "Going from the first of these {n} frames to the last, which way did the viewpoint go around the table: to the left or to the right, as one faces the table in the first frame?",
        "Over these {n} consecutive frames the viewpoint circles the table. Seen from where the first frame was taken, facing the table, did it go to the left or to the right?",
        "In this sequence of {n} frames, shown in order, did the viewpoint circle the table towards the left or towards the right, as one faces the table in the first frame?",
    ),
    "seq-orbit-deg": (
        "These {n} images are frames of one sequence, in order, while the viewpoint moved around the table. About how many degrees did it turn around the table between the first frame and the last?",
        "The {n} images were taken one after another as the photographer walked around the table. Through about how many degrees did they go, from the first frame to the last?",
        "Roughly how large is the angle, around the table, between where the first of these {n} frames and the last were taken?",
        "Over these {n} consecutive frames the viewpoint circles the table. By about how many degrees did the view turn around it in all?",
        "In this sequence of {n} frames, shown in order, about how far around the table did the viewpoint move from the first frame to the last, in degrees?",
    ),
    "seq-dolly-distance": (
        "These {n} images are frames of one sequence, in order, while the viewpoint moved straight towards the objects. About how far did it move between the first frame and the last?",
        "The {n} images were taken one after another as the photographer walked straight towards the table. Roughly how far did they move from the first frame to the last?",
        "Going from the first of these {n} frames to the last, the viewpoint comes closer to the objects. About what distance did it cover?",
        "Over these {n} consecutive frames the viewpoint moves in towards the objects. Approximately how far did it travel in all?",
        "In this sequence of {n} frames, shown in order, how far did the viewpoint move towards the objects from the first frame to the last, approximately?",
    ),
    # what two photos of one table show together; {a}, {b}: "first" or "second"
    "camera-side": (
        "Facing the table as in the {a} photo, where was the {b} photo taken from: from the left, from the right, or from the opposite side of the table?",
        "Standing where the {a} photo was taken and facing the table, is the spot the {b} photo was taken from on your left, on your right, or across the table (opposite)?",
        "Relative to where the {a} photo was taken, as one faces the table there, did the {b} photo's camera stand to the left, to the right, or opposite?",
        "The {a} and {b} photos show one table from two places. Seen from the {a} photo's place, is the {b} photo's place to the left, to the right, or opposite?",
        "Where does the camera of the {b} photo stand compared with that of the {a}, facing the table as in the {a}: left, right, or opposite?",
    ),
    "taken-from": (  # behind or in front of an object as the first photo sees it
        "As the first photo sees the table, was the second photo taken from behind the {x} or from in front of it?",
        "Seen from where the first photo was taken, does the camera of the second photo stand behind the {x} or in front of it?",
        "Was the second photo taken from the far side of the {x} (behind it, as the first photo sees it) or from in front of it?",
        "Looking across the table as in the first photo, is the place the second photo was taken from behind the {x} or in front of it?",
        "From the first photo's point of view, did the second photo's camera stand behind the {x} or in front of the {x}?",
    ),
    # {n} photos of one table, the first the frame: which other was taken from {side} ("behind", "in front of") the {x}
    "taken-from-which": (
        "These {n} photos show one table. As the first photo sees it, which of the other photos was taken from {side} the {x}?",
        "Seen from where the first of these {n} photos was taken, which of the other photos has its camera standing {side} the {x}?",
        "The {n} photos show the same table from different places. Looking across the table as in the first photo, which other photo was taken from {side} the {x}?",
        "From the first photo's point of view, which of the other photos of these {n} was taken from {side} the {x}?",
        "Of these {n} photos of one table, which one besides the first was taken from {side} the {x}, as the first photo sees the table?",
    ),
    "hidden-in-other": (
        "The {x} can be seen in the {a} photo. Is it hidden or out of the frame in the {b} photo?",
        "The {a} photo shows the {x}. Is the {x} out of sight (hidden behind something or outside the picture) in the {b} photo?",
        "Is the {x}, which is visible in the {a} photo, missing from view in the {b} photo, hidden or cut out of the frame?",
        "In the {a} photo the {x} is visible. Can it not be seen in the {b} photo, being hidden or outside the frame?",
        "Looking at the {b} photo: is the {x}, seen in the {a} photo, hidden there or out of the frame?",
    ),
    "count-together": (
        "How many different objects do the two photos show together, counting an object seen in both photos once?",
        "Both photos show the same table. How many distinct objects can be seen across the two, each counted once?",
        "Counting every object that is visible in at least one of the two photos, and each only once, how many objects are there?",
        "Taking the first photo and the second together, how many separate objects are visible, counting one seen in both once?",
        "How many objects in all appear in either photo, an object in both counted once?",
    ),
    # another observer than the viewer: {they} sets a person at a side of the table, {you} asks the reader standing
    # there up to the side ("If you walked around to the other side of the table ..., would the mug be"); {at}: where
    # one stands, {facing}: what one faces
    "person-yes/no": (
        "{they} From where they stand, is the {y} on their {side}?",
        "{they} Is the {y} on that person's {side}?",
        "{they} As that person sees it, is the {y} on their {side}?",
        "{you} on your {side}?",
        "{you} to your {side}?",
    ),
    "person-choice": (
        "{they} From where they stand, is the {y} on their left or on their right?",
        "{they} Is the {y} on that person's left or on their right?",
        "{they} As that person sees it, is the {y} on their left or their right?",
        "{you} on your left or on your right?",
        "{you} to your left or to your right?",
    ),
    "object-yes/no": (
        "Standing where the {at} is and facing the {facing}, is the {y} on your {side}?",
        "Imagine standing at the {at}, looking towards the {facing}. Is the {y} on your {side}?",
        "If you stood at the {at} and faced the {facing}, would the {y} be on your {side}?",
        "From the {at}'s position, facing the {facing}, is the {y} to your {side}?",
        "Picture yourself in the {at}'s place, turned towards the {facing}: is the {y} on your {side}?",
    ),
    "object-choice": (
        "Standing where the {at} is and facing the {facing}, is the {y} on your left or on your right?",
        "Imagine standing at the {at}, looking towards the {facing}. Is the {y} on your left or your right?",
        "If you stood at the {at} and faced the {facing}, would the {y} be on your left or on your right?",
        "From the {at}'s position, facing the {facing}, is the {y} to your left or to your right?",
        "Picture yourself in the {at}'s place, turned towards the {facing}: is the {y} on your left or your right?",
    ),
}
PHRASINGS |= {  # where in the image: an object named by a relation, free table, room, a map's cell, marks
    "point-object": (
        "From the viewer's point of view, point to the {x} {rel} the {y}.",
        "As the viewer sees it, where is the {x} {rel} the {y}? Point to it.",
        "Point to the {x} that is {rel} the {y}, as the viewer sees them.",
        "Seen from the viewer's position, mark a point on the {x} {rel} the {y}.",
        "Show where the {x} {rel} the {y} is, from the viewer's point of view, with a point on it.",
    ),
    "box-object": (
        "From the viewer's point of view, give the 2D box of the {x} {rel} the {y}.",
        "As the viewer sees it, draw a bounding box around the {x} {rel} the {y}.",
        "Give the bounding box of the {x} that is {rel} the {y}, as the viewer sees them.",
        "Seen from the viewer's position, where is the {x} {rel} the {y}? Give its 2D box.",
        "Locate the {x} {rel} the {y}, from the viewer's point of view, with a bounding box.",
    ),
    # the side of {y} named by another object {z} standing on it (the same side from anywhere): no side of the
    # picture, and no "between" (the free table reaches up to {z} along one axis, but spreads across it)
    "point-free": (
        "Point to a free spot on the table right next to the {y}, on its side towards the {z}.",
        "Where is there free space on the table just beside the {y}, on the side towards the {z}? Point to it.",
        "Mark a point on the table right next to the {y}, on its side towards the {z}, where nothing stands.",
        "Where could something be put down on the table just beside the {y}, on the side of it towards the {z}? Point to the spot.",
        "Point to an empty spot on the table next to the {y}, on the {z}'s side of it.",
    ),
    "fit-yes/no": (
        "Is there room for the {x} on the table between the {y} and the {z}?",
        "Would the {x} fit on the table between the {y} and the {z}?",
        "Could the {x} be put down between the {y} and the {z} without moving anything?",
        "Is the gap between the {y} and the {z} wide enough to set the {x} down in it?",
        "Is there space enough to stand the {x} on the table between the {y} and the {z}?",
    ),
    "map-cell": (
        "Picture the objects from above with you at the bottom, and a square 3x3 grid centred on them, just big enough to hold their centres. Which cell holds the {x}?",
        "Seen from above, you at the bottom, a square 3x3 grid is laid over the objects, as wide as they spread. In which cell is the {x}?",
        "Draw a map of the objects from above, you at the bottom, cut into a square 3x3 grid that just covers their centres. Which cell is the {x} in?",
        "Imagine looking down on the objects, you at the bottom, with a 3x3 grid over the smallest square centred on them that holds their centres. Where is the {x}?",
        "On a top-down square 3x3 grid just spanning the objects' centres, with you at the bottom, which cell does the {x} stand in?",
    ),
    "mark-which": (
        "Which number marks the {x}?",
        "The objects carry numbered marks. Which number is the {x}'s?",
        "What is the number of the mark on the {x}?",
        "Which of the numbered objects is the {x}?",
        "The {x} carries a numbered mark. Which number?",
    ),
    "mark-position-yes/no": viewer_phrasings("is object {a} {rel} object {b}?"),
    # two photos of one table, each with marks of its own numbering: {a} a mark of the first
    "mark-match": (
        "Object {a} is marked in the first photo. Which mark in the second photo is the same object?",
        "Both photos show the same table, its objects numbered in each. Which number in the second photo marks the object numbered {a} in the first?",
        "The object with mark {a} in the first photo: which mark does it carry in the second photo?",
        "Find the object marked {a} in the first photo. What is the number of its mark in the second photo?",
        "In the first photo one object carries the number {a}. Which number marks that same object in the second photo?",
    ),
}
STORY = (  # a question about a story, as the story's question puts it, or pointing at the story first
    "{asked}",
    "According to the story, {asked_lower}",
    "Going by the description, {asked_lower}",
    "From what the text says, {asked_lower}",
    "Based on these sentences, {asked_lower}",
)
PHRASINGS |= {f"story-{kind}": STORY for kind in ("yes/no", "choice", "both", "which")}
PHRASINGS |= {f"caption-{skill}": CAPTION for skill in CAPTION_SKILL.values()}
ONE = ("{text}",)  # a template worded one way (questions across two images): the text as made


@dataclass(frozen=True)
class Wording:
    """A question before it is worded: its template and the words that fill it."""

    template: str
    words: dict[str, str] = field(default_factory=dict)

    def phrasings(self) -> tuple[str, ...]:
        return PHRASINGS.get(self.template, ONE)

    def text(self, phrasing: int) -> str:
        return self.phrasings()[phrasing].format(**self.words)


def one(template: str, text: str) -> Wording:
    """A question of a template with a single wording."""
    return Wording(template, {"text": text})


def about_story(template: str, asked: str) -> Wording:
    """A question about a story: `asked` as it stands, or after words that point at the story."""
    return Wording(template, {"asked": asked, "asked_lower": asked[0].lower() + asked[1:]})


def drawn(seed: int, qid: str, count: int) -> int:
    """Which of `count` phrasings question `qid` is asked in: fixed by the seed and the id alone."""
    return random.Random(f"{seed}:{qid}:phrasing").randrange(count)
