"""Code shared by the task generators: models, geometry and drawing used by more than one task, and the
option placement of the multiple-choice tasks. Pure geometry that is independent of any question
(`cube_nets`) lives here too, so that the task files hold only what makes each task a task.

Nothing here is registered, and the registry does not scan this package. The abstract task bases here
(`three_views.ThreeViewsTask`, `cube_scenes.CubePictureTask`, `dice_paths.SinglePathTask`) hold what two
sibling tasks share; each of those tasks' files completes one with its question and its answer.
"""
